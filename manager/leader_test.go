package manager_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/retry"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
)

// fast lease timings keep the test short; the ratios match the defaults.
func lease(ns, id string) manager.LeaderElection {
	return manager.LeaderElection{Name: "lock", Namespace: ns, Identity: id,
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond}
}

func candidate(t *testing.T, ns, id string) (*manager.Manager, *testkit.Keys) {
	t.Helper()
	m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns),
		manager.WithLeaderElection(lease(ns, id)))
	if err != nil {
		t.Fatal(err)
	}
	r := &testkit.Keys{}
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	return m, r
}

func elected(m *manager.Manager) bool {
	select {
	case <-m.Elected():
		return true
	default:
		return false
	}
}

func TestOnlyTheLeaderReconcilesAndHandsOverOnShutdown(t *testing.T) {
	ns := testkit.Namespace(t, "mgr-")
	testkit.CreateConfigMaps(t, testkit.Clientset(t), ns, 0, 3)
	a, ra := candidate(t, ns, "a")
	b, rb := candidate(t, ns, "b")
	stopA := start(t, a)
	testkit.Eventually(t, 20*time.Second, "a elected", func() bool { return elected(a) })
	stopB := start(t, b)
	testkit.Eventually(t, 20*time.Second, "a reconciles all", func() bool { return ra.Distinct() == 3 })

	// b has synced its caches but stands by. Standing by is an absence, and
	// a manager's elector retries on the real clock (the elector's own
	// tests drive a fake one): give it five retry periods.
	syncCtx, cancelSync := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancelSync()
	if err := b.Factory().WaitForCacheSync(syncCtx); err != nil {
		t.Fatalf("standby b: %v", err)
	}
	time.Sleep(time.Second)
	if elected(b) || rb.Len() != 0 {
		t.Fatalf("standby b: elected=%v, %d reconciles", elected(b), rb.Len())
	}

	// A graceful shutdown releases the lease: b takes over well within
	// the lease duration instead of waiting for it to expire.
	begin := time.Now()
	if err := stopA(); err != nil {
		t.Fatalf("leader a: %v", err)
	}
	testkit.Eventually(t, 3*time.Second, "b elected within the lease duration", func() bool { return elected(b) })
	t.Logf("handover took %v (lease duration 3s)", time.Since(begin))
	testkit.Eventually(t, 20*time.Second, "b reconciles all", func() bool { return rb.Distinct() == 3 })
	if err := stopB(); err != nil {
		t.Fatalf("leader b: %v", err)
	}
}

func TestLosingTheLeaseStopsControllers(t *testing.T) {
	ns := testkit.Namespace(t, "mgr-")
	a, ra := candidate(t, ns, "a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Start(ctx) }()
	testkit.Eventually(t, 20*time.Second, "a elected", func() bool { return elected(a) })

	// Another holder takes the lease over behind a's back, as after a
	// network partition: a can no longer renew it. a may renew between
	// the Get and the Update, which then conflicts: read it again.
	leases := testkit.Clientset(t).CoordinationV1().Leases(ns)
	intruder := "intruder"
	now := metav1.NewMicroTime(time.Now().Add(time.Hour))
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		l, err := leases.Get(ctx, "lock", metav1.GetOptions{})
		if err != nil {
			return err
		}
		l.Spec.HolderIdentity, l.Spec.RenewTime, l.Spec.AcquireTime = &intruder, &now, &now
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	select {
	case err := <-done:
		if !errors.Is(err, manager.ErrLeaseLost) {
			t.Fatalf("Start returned %v, want ErrLeaseLost", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a kept running after losing its lease")
	}
	// Its controllers are stopped: new objects are not reconciled (an
	// absence, so it is given real time to show).
	before := ra.Len()
	testkit.CreateConfigMaps(t, testkit.Clientset(t), ns, 0, 1)
	time.Sleep(500 * time.Millisecond)
	if n := ra.Len(); n != before {
		t.Fatalf("%d reconciles after the lease was lost", n-before)
	}
}

// A replica whose RBAC does not grant its Lease fails Start with an error
// that names the Lease, the refused verb and the rule to grant, instead of
// standing by for good while /healthz and /readyz say it is fine.
func TestForbiddenLeaseFailsStart(t *testing.T) {
	ns := testkit.Namespace(t, "mgr-")
	m, err := manager.New(serviceAccount(t, ns, readConfigMaps), manager.WithNamespace(ns),
		manager.WithLeaderElection(lease(ns, "forbidden")))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = m.Start(ctx)
	switch {
	case err == nil || ctx.Err() != nil:
		t.Fatalf("Start returned %v after %v; want the Lease's refusal at once", err, ctx.Err())
	case !strings.Contains(err.Error(), "refuses to get the Lease "+ns+"/lock") || !strings.Contains(err.Error(), "coordination.k8s.io"):
		t.Fatalf("Start: %v; want the refused verb, the Lease and the rule to grant", err)
	}
	if elected(m) {
		t.Fatal("elected without a Lease")
	}
}
