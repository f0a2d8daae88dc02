package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/examples/internal/demo"
)

// The objects of the story.
const (
	fooName        = "example-foo"
	deploymentName = "example-foo-web"
	squatterName   = "squatter"  // a Foo naming…
	foreignName    = "not-yours" // …a Deployment it does not own
)

// summary is what the example observed.
type summary struct {
	Reconciles         int32   // reconciles of any Foo
	DeploymentsCreated int32   // by the reconciler
	DeploymentsScaled  int32   // by the reconciler
	StatusWrites       int32   // Foo status writes by the reconciler
	Refused            int32   // reconciles that refused a Deployment their Foo does not control
	Cleanups           int32   // finalizer clean-ups, one per deleted Foo
	DeploymentsDeleted int32   // by the clean-ups
	ControllerRef      bool    // the Deployment's owner reference: Foo, controller and blockOwnerDeletion
	ScaledTo           int32   // the Deployment's replicas after the Foo was scaled
	AvailableFollowed  []int32 // the Foo's status.availableReplicas after each Deployment status change
	WarningEvent       string  // the message of the Warning event on the squatter
	FoosGone           bool    // both Foos deleted once their finalizers were removed
	ForeignKept        bool    // the squatter's clean-up left the Deployment it did not own
}

// story is the state the steps share.
type story struct {
	out         io.Writer
	ns          string
	cs          kubernetes.Interface
	foos        *client.Client[*v1alpha1.Foo]
	deployments *client.Client[*appsv1.Deployment]
	idle        func() bool // whether the operator has no reconcile in progress
	s           summary
}

// run installs Foo's CRD in the cluster at cfg and plays the story in a fresh
// namespace, which it deletes afterwards.
func run(ctx context.Context, cfg *rest.Config, out io.Writer) (_ summary, err error) {
	out = demo.LockedWriter(out) // reconciles print from their own goroutines
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return summary{}, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return summary{}, err
	}
	if err := installCRD(ctx, dyn, cs.Discovery(), out); err != nil {
		return summary{}, err
	}
	nsObj, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "steady-foo-"}}, metav1.CreateOptions{})
	if err != nil {
		return summary{}, fmt.Errorf("creating a namespace: %w", err)
	}
	ns := nsObj.Name
	defer func() { err = errors.Join(err, deleteNamespace(context.WithoutCancel(ctx), cs, dyn, ns)) }()
	fmt.Fprintf(out, "working in namespace %s\n", ns)

	op, err := newOperator(cfg, ns, out)
	if err != nil {
		return summary{}, err
	}
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- op.mgr.Start(mgrCtx) }()
	defer func() {
		stop()
		if mgrErr := <-done; mgrErr != nil {
			err = errors.Join(err, fmt.Errorf("manager: %w", mgrErr))
		}
	}()

	st := &story{out: out, ns: ns, cs: cs, foos: op.reconciler.foos, deployments: op.reconciler.deployments, idle: op.reconciler.idle}
	for _, step := range []func(context.Context) error{st.create, st.becomeAvailable, st.scale, st.squat, st.delete} {
		if err := step(ctx); err != nil {
			return summary{}, err
		}
	}
	c := &op.reconciler.counts
	st.s.Reconciles, st.s.DeploymentsCreated, st.s.DeploymentsScaled = c.reconciles.Load(), c.created.Load(), c.scaled.Load()
	st.s.StatusWrites, st.s.Refused = c.statusWrites.Load(), c.refused.Load()
	st.s.Cleanups, st.s.DeploymentsDeleted = c.cleanups(), c.deleted.Load()
	return st.s, nil
}

// create creates the Foo and waits for its Deployment and finalizer.
func (st *story) create(ctx context.Context) error {
	fmt.Fprintf(st.out, "\n1. create foo %s: deploymentName %s, replicas 1\n", fooName, deploymentName)
	foo, err := st.foos.Create(ctx, &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: fooName, Namespace: st.ns},
		Spec:       v1alpha1.FooSpec{DeploymentName: deploymentName, Replicas: ptr.To[int32](1)},
	})
	if err != nil {
		return err
	}
	var d *appsv1.Deployment
	err = st.settle(ctx, "the foo's deployment and finalizer", func(ctx context.Context) (bool, error) {
		if d, err = st.getDeployment(ctx, deploymentName); d == nil || err != nil {
			return false, err
		}
		f, err := st.getFoo(ctx, fooName)
		return f != nil && slices.Contains(f.Finalizers, cleanupFinalizer), err
	})
	if err != nil {
		return err
	}
	ref := metav1.GetControllerOf(d)
	st.s.ControllerRef = ref != nil && ref.Kind == "Foo" && ref.UID == foo.UID && ptr.Deref(ref.BlockOwnerDeletion, false)
	if ref != nil {
		fmt.Fprintf(st.out, "deployment %s has ownerReference %s/%s %s (controller=%t, blockOwnerDeletion=%t); foo %s has finalizer %s\n",
			d.Name, ref.APIVersion, ref.Kind, ref.Name, ptr.Deref(ref.Controller, false), ptr.Deref(ref.BlockOwnerDeletion, false), fooName, cleanupFinalizer)
	}
	return nil
}

// becomeAvailable plays the deployment controller and waits for the Foo's
// status to follow the Deployment's.
func (st *story) becomeAvailable(ctx context.Context) error {
	fmt.Fprintln(st.out, "\n2. the deployment's pods become available")
	return st.playDeploymentController(ctx, 1)
}

// scale scales the Foo to 3 replicas and waits for the Deployment to follow,
// then for the Foo's status to follow the Deployment's.
func (st *story) scale(ctx context.Context) error {
	fmt.Fprintf(st.out, "\n3. scale foo %s to 3 replicas\n", fooName)
	foo, err := st.foos.Modify(ctx, st.ns, fooName, func(f *v1alpha1.Foo) error {
		f.Spec.Replicas = ptr.To[int32](3)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(st.out, "foo %s is at generation %d\n", fooName, foo.Generation)
	err = st.settle(ctx, "the deployment to be scaled to 3", func(ctx context.Context) (bool, error) {
		d, err := st.getDeployment(ctx, deploymentName)
		if d != nil {
			st.s.ScaledTo = ptr.Deref(d.Spec.Replicas, 1)
		}
		return st.s.ScaledTo == 3, err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(st.out, "deployment %s has 3 replicas\n", deploymentName)
	if err := st.playDeploymentController(ctx, 3); err != nil {
		return err
	}
	return st.settle(ctx, "the foo's observedGeneration", func(ctx context.Context) (bool, error) {
		f, err := st.getFoo(ctx, fooName)
		return f != nil && f.Status.ObservedGeneration == foo.Generation, err
	})
}

// playDeploymentController does what kube-controller-manager's deployment
// controller would, had testenv one: report n available replicas in the
// Deployment's status. Then it waits for the Foo's status to say n too.
func (st *story) playDeploymentController(ctx context.Context, n int32) error {
	fmt.Fprintf(st.out, "no kube-controller-manager here: playing the deployment controller, setting availableReplicas=%d on deployment %s\n", n, deploymentName)
	deployments := st.cs.AppsV1().Deployments(st.ns)
	_, err := demo.Update(ctx, deployments.Get, deployments.UpdateStatus, deploymentName, func(d *appsv1.Deployment) {
		d.Status.ObservedGeneration = d.Generation
		d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = n, n, n, n
	})
	if err != nil {
		return fmt.Errorf("setting the deployment's status: %w", err)
	}
	err = st.settle(ctx, fmt.Sprintf("foo %s to report availableReplicas=%d", fooName, n), func(ctx context.Context) (bool, error) {
		f, err := st.getFoo(ctx, fooName)
		return f != nil && f.Status.AvailableReplicas == n, err
	})
	if err != nil {
		return err
	}
	st.s.AvailableFollowed = append(st.s.AvailableFollowed, n)
	fmt.Fprintf(st.out, "foo %s status follows: availableReplicas=%d (the deployment's status change enqueued its owner)\n", fooName, n)
	return nil
}

// squat creates a Deployment by hand and a Foo that names it, and waits for
// the operator's refusal.
func (st *story) squat(ctx context.Context) error {
	fmt.Fprintf(st.out, "\n4. create deployment %s by hand, and foo %s naming it\n", foreignName, squatterName)
	if _, err := st.deployments.Create(ctx, deployment(st.ns, foreignName, 1)); err != nil {
		return err
	}
	_, err := st.foos.Create(ctx, &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: squatterName, Namespace: st.ns},
		Spec:       v1alpha1.FooSpec{DeploymentName: foreignName},
	})
	if err != nil {
		return err
	}
	err = st.settle(ctx, "a Warning event on foo "+squatterName, func(ctx context.Context) (bool, error) {
		evs, err := st.cs.EventsV1().Events(st.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, ev := range evs.Items {
			if ev.Regarding.Name == squatterName && ev.Reason == "ErrResourceExists" && ev.Type == corev1.EventTypeWarning {
				st.s.WarningEvent = ev.Note
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(st.out, "foo %s has a Warning event ErrResourceExists: %s\n", squatterName, st.s.WarningEvent)
	return nil
}

// delete deletes both Foos and waits until the API server has removed them,
// which it does only once the finalizer clean-ups have run.
func (st *story) delete(ctx context.Context) error {
	fmt.Fprintf(st.out, "\n5. delete foos %s and %s\n", fooName, squatterName)
	for _, name := range []string{fooName, squatterName} {
		if err := st.foos.Delete(ctx, st.ns, name); err != nil {
			return err
		}
	}
	err := st.settle(ctx, "both foos and deployment "+deploymentName+" to be gone", func(ctx context.Context) (bool, error) {
		for _, name := range []string{fooName, squatterName} {
			if f, err := st.getFoo(ctx, name); f != nil || err != nil {
				return false, err
			}
		}
		d, err := st.getDeployment(ctx, deploymentName)
		return d == nil, err
	})
	if err != nil {
		return err
	}
	st.s.FoosGone = true
	d, err := st.getDeployment(ctx, foreignName)
	st.s.ForeignKept = d != nil
	fmt.Fprintf(st.out, "foos %s and %s are gone, and so is deployment %s; deployment %s is still there: %t\n",
		fooName, squatterName, deploymentName, foreignName, st.s.ForeignKept)
	return err
}

// settle waits until cond holds and the operator is idle. Every state the
// story waits for is written by a reconcile, so waiting for that reconcile
// to end as well keeps its narration ahead of the story's.
func (st *story) settle(ctx context.Context, what string, cond func(context.Context) (bool, error)) error {
	return waitFor(ctx, what, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		return ok && st.idle(), err
	})
}

// getFoo reads a Foo from the API server (not the operator's cache, so
// that the story sees what is stored); nil if it does not exist.
func (st *story) getFoo(ctx context.Context, name string) (*v1alpha1.Foo, error) {
	return orNil(st.foos.Live().Get(ctx, st.ns, name))
}

// getDeployment reads a Deployment from the API server; nil if it does not
// exist.
func (st *story) getDeployment(ctx context.Context, name string) (*appsv1.Deployment, error) {
	return orNil(st.cs.AppsV1().Deployments(st.ns).Get(ctx, name, metav1.GetOptions{}))
}

func orNil[T any](obj *T, err error) (*T, error) {
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}

// deleteNamespace deletes the story's namespace. A run that failed half-way
// may leave Foos whose finalizer no operator will remove once this one has
// stopped, which would keep the namespace terminating forever: it releases
// them first.
func deleteNamespace(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, ns string) error {
	left, err := dyn.Resource(fooGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing foos left in %s: %w", ns, err)
	}
	for _, f := range left.Items {
		_, err := dyn.Resource(fooGVR).Namespace(ns).Patch(ctx, f.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("releasing foo %s: %w", f.GetName(), err)
		}
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting namespace %s: %w", ns, err)
	}
	return nil
}
