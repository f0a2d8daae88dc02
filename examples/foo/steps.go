package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
	"github.com/steadyctl/steady/examples/internal/demo"
)

// The story's steps but the webhooks' (webhook_steps.go), in order.

// create creates the Foo, without replicas or image, and waits for its
// Deployment and finalizer.
func (st *story) create(ctx context.Context) error {
	fmt.Fprintf(st.out, "\n1. create foo %s: deployment.name %s, no replicas, no image\n", fooName, deploymentName)
	foo, err := st.foos.Create(ctx, &v1beta1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: fooName, Namespace: st.ns},
		Spec:       v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{Name: deploymentName}},
	})
	if err != nil {
		return err
	}
	st.reportDefaults(foo)
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
	foo, err := st.foos.Modify(ctx, st.ns, fooName, func(f *v1beta1.Foo) error {
		f.Spec.Deployment.Replicas = ptr.To[int32](3)
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
	_, err := st.foos.Create(ctx, &v1beta1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: squatterName, Namespace: st.ns},
		Spec:       v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{Name: foreignName}},
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

// delete deletes the Foos and waits until the API server has removed them,
// which it does only once the finalizer clean-ups have run.
func (st *story) delete(ctx context.Context) error {
	foos, deployments := []string{fooName, squatterName}, []string{deploymentName}
	if st.s.Webhooks != "" {
		foos, deployments = append(foos, legacyName), append(deployments, legacyDeploy)
	}
	fmt.Fprintf(st.out, "\n6. delete foos %s\n", strings.Join(foos, ", "))
	for _, name := range foos {
		if err := st.foos.Delete(ctx, st.ns, name); err != nil {
			return err
		}
	}
	err := st.settle(ctx, fmt.Sprintf("foos %v and deployments %v to be gone", foos, deployments), func(ctx context.Context) (bool, error) {
		for _, name := range foos {
			if f, err := st.getFoo(ctx, name); f != nil || err != nil {
				return false, err
			}
		}
		for _, name := range deployments {
			if d, err := st.getDeployment(ctx, name); d != nil || err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	st.s.FoosGone = true
	d, err := st.getDeployment(ctx, foreignName)
	st.s.ForeignKept = d != nil
	fmt.Fprintf(st.out, "foos %s are gone, and so are deployment(s) %s; deployment %s is still there: %t\n",
		strings.Join(foos, ", "), strings.Join(deployments, ", "), foreignName, st.s.ForeignKept)
	return err
}
