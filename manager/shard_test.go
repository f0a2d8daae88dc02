package manager_test

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
	"github.com/steadyctl/steady/shard"
)

// ShardInformer keeps an informer to the ring's ranges: the selector of
// nothing until the ring has joined, then its own; the manager runs a
// ring added twice once, on a replica that is not (yet) the leader too,
// and the informer's ShardMode shows who filters. Bad arguments are
// errors naming them.
func TestShardInformerFollowsTheRing(t *testing.T) {
	ns := testkit.Namespace(t, "shardinf")
	cs := testkit.Clientset(t)
	testkit.CreateConfigMaps(t, cs, ns, 0, 20)
	m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns),
		manager.WithLeaderElection(manager.LeaderElection{Name: "held-elsewhere", Namespace: ns, Identity: "me"}))
	if err != nil {
		t.Fatal(err)
	}
	ring, err := shard.New(m.Cluster(), "ring", "solo", shard.WithNamespace(ns), shard.WithLeaseDuration(3*time.Second),
		shard.WithRenewDeadline(2*time.Second), shard.WithRetryPeriod(250*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	other, err := shard.New(m.Cluster(), "other", "solo", shard.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	inf, err := informer.For[*corev1.ConfigMap](m.Factory(), "", object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	// In order: the first call succeeds, the next ones meet it.
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil ring", m.ShardInformer(nil, shard.UID, inf), "nil ring or informer"},
		{"nil inf", m.ShardInformer(ring, shard.UID, nil), "nil ring or informer"},
		{"bad field", m.ShardInformer(ring, "object.metadata.name", inf), `unknown field "object.metadata.name"`},
		{"first", m.ShardInformer(ring, shard.UID, inf), ""},
		{"again alike", m.ShardInformer(ring, shard.UID, inf), ""},
		{"other field", m.ShardInformer(ring, shard.Namespace, inf), `already follows ring "ring" by object.metadata.uid`},
		{"other ring", m.ShardInformer(other, shard.UID, inf), `already follows ring "ring"`},
	} {
		name := tc.name
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v", name, tc.err)
		case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error containing %q", name, tc.err, tc.want)
		}
	}
	nothing, _ := shard.Selector(shard.UID, []shard.Range{{Start: 0, End: 1}})
	if got := inf.ShardSelector(); got != nothing {
		t.Fatalf("before the ring joins: selector %q, want the one of hash 0 alone", got)
	}
	if err := m.Add(ring); err != nil {
		t.Fatal(err)
	}
	// Another replica leads for the next hour: this one never does.
	_, err = cs.CoordinationV1().Leases(ns).Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "held-elsewhere"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("someone"), LeaseDurationSeconds: ptr.To(int32(3600)),
			AcquireTime: &metav1.MicroTime{Time: time.Now()}, RenewTime: &metav1.MicroTime{Time: time.Now()}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	testkit.Eventually(t, 30*time.Second, "the informer follows the ring's selector", func() bool {
		want, err := ring.Selector(shard.UID)
		return err == nil && inf.ShardSelector() == want
	})
	testkit.Eventually(t, 30*time.Second, "the informer holds what the ring owns: everything", func() bool { return inf.Cache().Len() == 20 })
	select {
	case <-m.Elected():
		t.Error("elected, though another replica holds the lease")
	default:
	}
	if m := inf.ShardMode(); m != reflector.ShardClient {
		t.Errorf("ShardMode %s on the shared environment (gate off), want client", m)
	}
}
