package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/predicate"
)

// operator is the Foo operator: a manager running one controller and,
// with webhooks, Foo's admission and conversion webhooks.
type operator struct {
	mgr        *manager.Manager
	reconciler *reconciler
	scheme     *runtime.Scheme
	ns         string
}

// newScheme returns client-go's built-in kinds plus both versions of Foo:
// the conversion webhook decodes each into its own Go type.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1beta1.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// newOperator wires the Foo controller into a manager watching namespace
// ns, and, if webhooks, Foo's webhooks (see webhookOptions). Call Start on
// its mgr to run it, then registerWebhooks.
func newOperator(cfg *rest.Config, ns string, webhooks bool, out io.Writer) (*operator, error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, fmt.Errorf("building the scheme: %w", err)
	}
	opts := []manager.Option{manager.WithScheme(scheme), manager.WithNamespace(ns), manager.WithLogger(logger(out))}
	if webhooks {
		opts = append(opts, webhookOptions(ns)...)
	}
	mgr, err := manager.New(cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	r, err := setup(mgr, scheme, out)
	if err != nil {
		return nil, err
	}
	if webhooks {
		if err := setupWebhooks(mgr); err != nil {
			return nil, fmt.Errorf("setting up the webhooks: %w", err)
		}
	}
	return &operator{mgr: mgr, reconciler: r, scheme: scheme, ns: ns}, nil
}

// setup wires the Foo controller into mgr and returns its reconciler.
func setup(mgr *manager.Manager, scheme *runtime.Scheme, out io.Writer) (*reconciler, error) {
	// Clients over the manager's shared caches: the same informers the
	// builder watches below, so one watch per kind.
	// The operator reads and writes v1beta1 alone, the stored version:
	// its cache needs no conversion, and v1alpha1 clients are the
	// conversion webhook's business.
	foos, err := client.For[*v1beta1.Foo](mgr.Factory(), "")
	if err != nil {
		return nil, err
	}
	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
	if err != nil {
		return nil, err
	}
	// Kubernetes Events (events.k8s.io/v1): what `kubectl describe foo`
	// shows. The manager flushes them when it stops.
	recorder, err := mgr.EventRecorderFor("foo-controller")
	if err != nil {
		return nil, err
	}
	r, err := newReconciler(foos, deployments, scheme, recorder, out)
	if err != nil {
		return nil, err
	}
	err = builder.ControllerManagedBy(mgr).
		// A Foo's own events, but not those of the reconciler's status
		// writes, which leave metadata.generation alone. (A deletion sets
		// deletionTimestamp and bumps the generation: it gets through.)
		For(builder.Kind(&v1beta1.Foo{}, predicate.GenerationChanged[*v1beta1.Foo]())).
		// A Deployment's events enqueue the Foo that controls it: that is
		// how a change to its status reaches the Foo's.
		Owns(builder.Kind(&appsv1.Deployment{})).
		Complete(r)
	return r, err
}

// logger writes the framework's log lines (start, stop, failed reconciles)
// among the example's narration.
func logger(out io.Writer) logr.Logger {
	return funcr.New(func(prefix, args string) {
		fmt.Fprintf(out, "  log: %s\n", strings.TrimSpace(prefix+" "+args))
	}, funcr.Options{LogInfoLevel: ptr.To("")})
}
