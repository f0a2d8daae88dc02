package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
	"github.com/steadyctl/steady/examples/internal/demo"
)

// The objects of the story.
const (
	fooName        = "example-foo"
	deploymentName = "example-foo-web"
	squatterName   = "squatter"  // a Foo naming…
	foreignName    = "not-yours" // …a Deployment it does not own
	legacyName     = "legacy"    // a Foo written as v1alpha1…
	legacyDeploy   = "legacy-web"
	invalidName    = "bad" // …and one the validator refuses
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
	FoosGone           bool    // every Foo deleted once its finalizer was removed
	ForeignKept        bool    // the squatter's clean-up left the Deployment it did not own

	// The webhooks' part, with the local control plane only.
	Webhooks       string // where they were served; "" when they were not
	Stored         string // how a Foo created without replicas or image was stored
	Invalid        string // the validator's refusal of an invalid Foo
	Immutable      string // its refusal of a new deployment name
	ImageWarning   string // its warning about a deprecated image registry
	Deprecation    string // the API server's warning about v1alpha1
	ReadAsV1beta1  string // the spec of a Foo written as v1alpha1, read as v1beta1
	ReadAsV1alpha1 string // the spec and image annotation of a Foo written as v1beta1, read as v1alpha1
}

// story is the state the steps share.
type story struct {
	out         io.Writer
	ns          string
	cs          kubernetes.Interface
	foos        *client.Client[*v1beta1.Foo]
	deployments *client.Client[*appsv1.Deployment]
	idle        func() bool // whether the operator has no reconcile in progress
	// Typed clients of each version that go through the API server's
	// conversion, with webhooks only.
	beta, alpha *versionClient
	s           summary
}

// run installs Foo's CRD in the cluster at cfg and plays the story in a
// fresh namespace, which it deletes afterwards. With webhooks, which only a
// local API server can call (see webhookOptions), the operator serves
// Foo's defaulting, validating and conversion webhooks, and the story
// shows them at work.
func run(ctx context.Context, cfg *rest.Config, webhooks bool, out io.Writer) (_ summary, err error) {
	out = demo.LockedWriter(out) // reconciles print from their own goroutines
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return summary{}, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return summary{}, err
	}
	// v1beta1 alone until the conversion webhook listens.
	if err := installCRD(ctx, dyn, cs.Discovery(), fooCRD(""), out); err != nil {
		return summary{}, err
	}
	nsObj, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "steady-foo-"}}, metav1.CreateOptions{})
	if err != nil {
		return summary{}, fmt.Errorf("creating a namespace: %w", err)
	}
	ns := nsObj.Name
	defer func() { err = errors.Join(err, deleteNamespace(context.WithoutCancel(ctx), cs, dyn, ns)) }()
	fmt.Fprintf(out, "working in namespace %s\n", ns)

	op, err := newOperator(cfg, ns, webhooks, out)
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
	if webhooks {
		unregister, werr := op.registerWebhooks(ctx, cs, dyn, out)
		if werr != nil {
			return summary{}, fmt.Errorf("registering the webhooks: %w", werr)
		}
		// Before the manager stops: a configuration whose server is gone
		// would refuse every write to the namespace's Foos.
		defer func() { err = errors.Join(err, unregister(context.WithoutCancel(ctx))) }()
		st.s.Webhooks = "https://" + op.mgr.WebhookServer().Addr()
		if st.beta, err = newVersionClient(cfg, op.scheme, v1beta1.SchemeGroupVersion, ns); err != nil {
			return summary{}, err
		}
		if st.alpha, err = newVersionClient(cfg, op.scheme, v1alpha1.SchemeGroupVersion, ns); err != nil {
			return summary{}, err
		}
	} else {
		fmt.Fprintln(out, "webhooks: off. The API server of this cluster runs elsewhere and cannot call back a server on this")
		fmt.Fprintln(out, "machine's loopback; they run with the local control plane (-local). README.md lists what a deployment needs.")
	}
	for _, step := range []func(context.Context) error{st.create, st.becomeAvailable, st.scale, st.squat, st.webhooks, st.delete} {
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
func (st *story) getFoo(ctx context.Context, name string) (*v1beta1.Foo, error) {
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
