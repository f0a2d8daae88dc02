// Most examples in this file need an API server, so they have no Output
// comment: go test compiles them but does not run them. The tests run the
// same calls against a local control plane (etcd and kube-apiserver, when
// not -short): TestManagerRunsControllersAndServesProbesAndMetrics and
// TestSelectorsRestrictCaches in manager_test.go,
// TestEventRecorderWritesEventsV1 and TestLegacyEventRecorderWritesCoreV1Events
// in events_test.go, TestOnlyTheLeaderReconcilesAndHandsOverOnShutdown in
// leader_test.go. ExampleManager_Add and ExampleWithPprofAddr read no kind,
// need no server, and run. The whole operator, with package builder, is builder's Example.
package manager_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// A manager of an operator whose RBAC grants it two namespaces: every
// cache of a namespaced kind holds those two, through one watch per
// namespace; Secrets come from one more namespace only, where the
// operator's shared credentials live, and Events are not cached at all
// (TestManagerNamespacesAndKindOverride, TestUncachedKindNeedsOnlyGet).
func ExampleWithNamespaces() {
	cfg, err := cluster.LoadConfig()
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme),
		manager.WithNamespaces("shop", "billing"),
		manager.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{Namespaces: []string{"operator-credentials"}}),
		manager.WithKind(schema.GroupKind{Group: "events.k8s.io", Kind: "Event"}, informer.KindOptions{Uncached: true}),
	)
	if err != nil {
		log.Fatal(err)
	}
	// One client, one cache of both namespaces' Deployments; List without
	// InNamespace lists both, InNamespace("default") is an error.
	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(deployments.Informer().Namespaces()) // [billing shop]
}

// A manager as an operator deployed in its own namespace runs it: caches
// scoped to that namespace, Secrets cached only if they are the
// operator's, probes and metrics served, and two replicas of which only
// the elected one reconciles.
func ExampleNew() {
	cfg, err := cluster.LoadConfig() // in the pod: its service account
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := manager.New(cfg,
		manager.WithScheme(clientgoscheme.Scheme), // the Go types of every built-in kind
		manager.WithThrottle(cluster.NoThrottle),  // the server's API Priority and Fairness protects it
		manager.WithNamespace("shop"),
		manager.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{Selector: object.Selector{Labels: "app.kubernetes.io/managed-by=shop-operator"}}),
		manager.WithMetricsAddr(":8443"),
		manager.WithHealthAddr(":8081"),
		manager.WithLeaderElection(manager.LeaderElection{Name: "shop-operator", Namespace: "shop"}),
		manager.WithCacheSyncTimeout(time.Minute),
	)
	if err != nil {
		log.Fatal(err)
	}
	// ... add controllers, with package builder or as ExampleManager_ControllerOptions does ...
	if err := mgr.Start(manager.SignalContext(context.Background())); err != nil {
		log.Fatal(err)
	}
}

// A controller wired into a manager by hand, as package builder does: the
// manager's options give it the manager's logger, metrics and sync
// timeout, its source is the manager's shared informer, and the manager
// starts it, on the leader only, once the caches run.
func ExampleManager_ControllerOptions() {
	var cfg *rest.Config // from cluster.LoadConfig or testenv
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		log.Fatal(err)
	}
	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
	if err != nil {
		log.Fatal(err)
	}
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		d, err := deployments.Get(ctx, req.Namespace, req.Name)
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil // deleted: nothing to do
		} else if err != nil {
			return reconcile.Result{}, err
		}
		controller.LoggerFrom(ctx).Info("reconciling", "generation", d.Generation)
		return reconcile.Result{}, nil
	})
	opts, err := mgr.ControllerOptions("deployments")
	if err != nil {
		log.Fatal(err)
	}
	ctrl, err := controller.New("deployments", r, append(opts, controller.WithMaxConcurrentReconciles(4))...)
	if err != nil {
		log.Fatal(err)
	}
	if err := ctrl.Watch(controller.Informer(deployments.Informer(), handler.EnqueueObject[*appsv1.Deployment]())); err != nil {
		log.Fatal(err)
	}
	if err := mgr.Add(ctrl); err != nil {
		log.Fatal(err)
	}
	if err := mgr.Start(manager.SignalContext(context.Background())); err != nil {
		log.Fatal(err)
	}
}

// Events are what `kubectl events` and `kubectl describe` show about an
// object: the place to tell a user what the operator did with their
// object, and why. A recorder is made once, when the reconciler is, and
// used by every reconcile.
func ExampleManager_EventRecorderFor() {
	var mgr *manager.Manager // from manager.New
	recorder, err := mgr.EventRecorderFor("shop-operator")
	if err != nil {
		log.Fatal(err)
	}
	var d *appsv1.Deployment // the object being reconciled
	// The second object is a related one, if any: the child created, the
	// autoscaler that asked.
	recorder.Eventf(d, nil, corev1.EventTypeNormal, "Scaled", "Scale", "scaled to %d replicas for the sale", 10)
}

// A cluster or tool that reads only core/v1 Events gets them from the
// legacy recorder, whose methods are those of client-go's
// record.EventRecorder.
func ExampleManager_LegacyEventRecorderFor() {
	var mgr *manager.Manager // from manager.New
	recorder, err := mgr.LegacyEventRecorderFor("shop-operator")
	if err != nil {
		log.Fatal(err)
	}
	var d *appsv1.Deployment // the object being reconciled
	recorder.Eventf(d, corev1.EventTypeNormal, "Scaled", "scaled to %d replicas for the sale", 10)
}

// Go's profiles, served on a port of their own, answer `go tool pprof
// http://127.0.0.1:8082/debug/pprof/heap` while the manager runs.
func ExampleWithPprofAddr() {
	// This manager reads no kind, so it never calls the API server at cfg.
	cfg := &rest.Config{Host: "https://kubernetes.invalid"}
	// Plain HTTP on loopback, as during development; in a cluster leave
	// WithInsecureServing out, and pprof is served over HTTPS to callers
	// that RBAC allows "get" on /debug/pprof/*.
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithPprofAddr("127.0.0.1:0"), manager.WithInsecureServing(true)) // :0, a free port
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	<-mgr.Elected() // closed once Start runs (no leader election here)
	resp, err := http.Get("http://" + mgr.PprofAddr() + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	stop()
	fmt.Println("Start returned", <-done)
	// Output:
	// 200 OK
	// Start returned <nil>
}

// flusher is a Runnable that is not a controller: it batches writes to
// some external system, and flushes what it holds when it is stopped.
type flusher struct{ running chan struct{} }

func (f flusher) Start(ctx context.Context) error {
	fmt.Println("flusher: running")
	close(f.running)
	<-ctx.Done()
	fmt.Println("flusher: flushing before exit")
	return nil
}

// NeedLeaderElection says that the flusher runs on standby replicas too:
// with leader election, only runnables that say so do.
func (flusher) NeedLeaderElection() bool { return false }

// A manager runs any Runnable beside its controllers, and Start returns
// only after every one of them has returned, so work in progress at
// SIGTERM is finished, not cut off.
func ExampleManager_Add() {
	// This manager reads no kind, so it never calls the API server at cfg.
	cfg := &rest.Config{Host: "https://kubernetes.invalid"}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		log.Fatal(err)
	}
	f := flusher{running: make(chan struct{})}
	if err := mgr.Add(f); err != nil {
		log.Fatal(err)
	}
	ctx, sigterm := context.WithCancel(context.Background())
	go func() {
		<-f.running
		sigterm()
	}()
	err = mgr.Start(ctx)
	fmt.Println("Start returned", err)
	// Output:
	// flusher: running
	// flusher: flushing before exit
	// Start returned <nil>
}
