package operatortest_test

import (
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
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
		env.Start(runObserver, quiet)
		t2 := time.Now()
		deployments := operatortest.Client[*appsv1.Deployment](env)
		if _, err := deployments.Create(b.Context(), newDeployment(env.Namespace, "web")); err != nil {
			b.Fatal(err)
		}
		testenv.Eventually(b, 10*time.Second, "the reconcile", func() bool {
			d, err := deployments.Live().Get(b.Context(), env.Namespace, "web")
			return err == nil && d.Status.ObservedGeneration == 1
		})
		t3 := time.Now()
		it.end()
		t4 := time.Now()
		namespace, start, reconcile, teardown = namespace+t1.Sub(t0), start+t2.Sub(t1), reconcile+t3.Sub(t2), teardown+t4.Sub(t3)
	}
	for name, d := range map[string]time.Duration{"namespace": namespace, "start": start, "reconcile": reconcile, "teardown": teardown} {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "ms-"+name+"/op")
	}
}
