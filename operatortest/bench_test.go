package operatortest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/testenv"
)

// iteration is one benchmark iteration's testing.TB: its cleanups run at
// the end of the iteration, as a test's run at the end of the test, rather
// than after the whole benchmark.
type iteration struct {
	testing.TB
	cleanups []func()
}

func (it *iteration) Cleanup(f func()) { it.cleanups = append(it.cleanups, f) }

func (it *iteration) end() {
	for _, f := range slices.Backward(it.cleanups) {
		f()
	}
}

// BenchmarkReconcilerTest is what one reconciler test costs once the shared
// control plane runs: a fresh namespace, a manager started and synced,
// create a Deployment → its reconcile observed through the API server, and
// the teardown. The split is reported per phase, in ms/op.
func BenchmarkReconcilerTest(b *testing.B) {
	quiet := operatortest.WithManagerOptions(manager.WithLogger(logr.Discard()))
	testenv.Shared(b)
	var namespace, start, reconcile, teardown time.Duration
	for b.Loop() {
		it := &iteration{TB: b}
		t0 := time.Now()
		env := operatortest.Prepare(it, quiet)
		t1 := time.Now()
		env.Start(setupWithManager, quiet)
		t2 := time.Now()
		createAndObserve(it, env)
		t3 := time.Now()
		it.end()
		t4 := time.Now()
		namespace, start, reconcile, teardown = namespace+t1.Sub(t0), start+t2.Sub(t1), reconcile+t3.Sub(t2), teardown+t4.Sub(t3)
	}
	for name, d := range map[string]time.Duration{"namespace": namespace, "start": start, "reconcile": reconcile, "teardown": teardown} {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "ms-"+name+"/op")
	}
}

// BenchmarkReconcilerTestParallel is BenchmarkReconcilerTest with eight
// tests at a time, as t.Parallel runs them: ns/op is the wall time per test.
func BenchmarkReconcilerTestParallel(b *testing.B) {
	quiet := operatortest.WithManagerOptions(manager.WithLogger(logr.Discard()))
	testenv.Shared(b)
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			it := &iteration{TB: b}
			createAndObserve(it, operatortest.New(it, setupWithManager, builtIn, quiet))
			it.end()
		}
	})
}

// createAndObserve is a reconciler test after New: create a Deployment,
// wait for its reconcile.
func createAndObserve(tb testing.TB, env *operatortest.Env) {
	deployments := operatortest.Client[*appsv1.Deployment](env)
	if _, err := deployments.Create(tb.Context(), newDeployment(env.Namespace, "web")); err != nil {
		tb.Fatal(err)
	}
	testenv.Eventually(tb, 10*time.Second, "the reconcile", func() bool {
		d, err := deployments.Live().Get(tb.Context(), env.Namespace, "web")
		return err == nil && d.Status.ObservedGeneration == 1
	})
}

// BenchmarkFirstList is where most of BenchmarkReconcilerTest's start goes:
// an informer's first list in a fresh namespace, as the manager makes it (a
// consistent read, resourceVersion "") and as it could (resourceVersion
// "0", any age, which client-go's reflectors use). kube-apiserver answers a
// consistent read once its watch cache has caught up with etcd, and asks
// etcd for that progress at most every 100 ms per resource.
func BenchmarkFirstList(b *testing.B) {
	env := testenv.Shared(b)
	for _, bc := range []struct{ name, rv string }{{"consistent", ""}, {"any", "0"}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				it := &iteration{TB: b}
				ns := env.NewNamespace(it, "first-list-")
				c, err := cluster.New(env.Config, cluster.WithScheme(clientgoscheme.Scheme))
				if err != nil {
					b.Fatal(err)
				}
				f, err := informer.NewFactory(c, informer.WithNamespace(ns),
					informer.WithReflectorOptions(reflector.WithInitialListResourceVersion(bc.rv)))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := informer.For[*appsv1.Deployment](f, "", object.Selector{}); err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(b.Context())
				done := make(chan error, 1)
				go func() { done <- f.Start(ctx) }()
				if err := f.WaitForCacheSync(ctx); err != nil {
					b.Fatal(err)
				}
				cancel()
				<-done
				it.end()
			}
		})
	}
}
