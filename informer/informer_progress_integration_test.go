package informer_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
)

// holdBack is an informer transform that holds the watch event of one
// object until let is called: the API server has sent it, the informer
// has not cached it, so a test can look at a cache that is behind a write
// for as long as it needs.
type holdBack struct {
	namespace, name string
	gate            chan struct{}
	once            sync.Once
}

func newHoldBack(namespace, name string) *holdBack {
	return &holdBack{namespace: namespace, name: name, gate: make(chan struct{})}
}

func (h *holdBack) transform(cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	if cm.Namespace == h.namespace && cm.Name == h.name {
		<-h.gate
	}
	return cm, nil
}

func (h *holdBack) let() { h.once.Do(func() { close(h.gate) }) }

// onProcessed is a WhenProcessed callback that checks, as it runs, that
// the cache holds namespace/name at resourceVersion or later.
type onProcessed struct {
	t    *testing.T
	c    *informer.Cache[*corev1.ConfigMap]
	ns   string
	name string
	rv   string
	runs atomic.Int32
	done chan struct{}
}

func newOnProcessed(t *testing.T, inf *informer.Informer[*corev1.ConfigMap], written *corev1.ConfigMap) *onProcessed {
	return &onProcessed{t: t, c: inf.Cache(), ns: written.Namespace, name: written.Name, rv: written.ResourceVersion, done: make(chan struct{})}
}

func (o *onProcessed) run() {
	if cm, ok := o.c.Get(o.ns, o.name); !ok || !atLeast(cm.ResourceVersion, o.rv) {
		o.t.Errorf("WhenProcessed(%s) ran with %s/%s cached: %v", o.rv, o.ns, o.name, cm)
	}
	if o.runs.Add(1) == 1 {
		close(o.done)
	}
}

func (o *onProcessed) wait(what string) {
	o.t.Helper()
	select {
	case <-o.done:
	case <-time.After(30 * time.Second):
		o.t.Fatalf("%s: WhenProcessed(%s) never ran", what, o.rv)
	}
}

// A write's resourceVersion is processed once the cache holds the written
// object: HasProcessed is false before and true after, and WhenProcessed
// runs its callback then, not before.
func TestWhenProcessedFollowsAWriteOnARealServer(t *testing.T) {
	ctx, cs := context.Background(), testkit.Clientset(t)
	ns := testkit.Namespace(t, "progress-")
	hold := newHoldBack(ns, "w")
	inf, err := informer.New[*corev1.ConfigMap](reflector.FromClient(cs.CoreV1().ConfigMaps(ns)), informer.WithName("configmaps/"+ns))
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.SetTransform(hold.transform); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inf.Start(runCtx) }()
	defer func() { hold.let(); cancel(); <-done }()
	syncIn(t, inf)

	written := createConfigMap(t, ns, "w")
	if inf.HasProcessed(ns, written.ResourceVersion) {
		t.Fatalf("HasProcessed(%s) with the write held back; cache at %s", written.ResourceVersion, inf.LastSyncResourceVersion())
	}
	check := newOnProcessed(t, inf, written)
	if _, waiting := inf.WhenProcessed(ns, written.ResourceVersion, check.run); !waiting {
		t.Fatal("not waiting for the held-back write")
	}
	hold.let()
	check.wait("the write let through")
	if !inf.HasProcessed(ns, written.ResourceVersion) {
		t.Fatal("HasProcessed false after WhenProcessed ran")
	}

	// Unheld, the next write is processed by the time the callback runs,
	// whether or not it had to wait.
	written.Data = map[string]string{"k": "v"}
	updated, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, written, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := newOnProcessed(t, inf, updated)
	if _, waiting := inf.WhenProcessed(ns, updated.ResourceVersion, next.run); !waiting {
		next.run() // already processed: it must be in the cache now
	}
	next.wait("the update")
	if p := inf.Progress(); !atLeast(p.ResourceVersion, updated.ResourceVersion) || p.Advanced.IsZero() || p.Received.IsZero() {
		t.Fatalf("Progress = %+v, want at least %s with both times set", p, updated.ResourceVersion)
	}
}

// An informer of two namespaces awaits a write in namespace a on a's watch
// alone: b's watch passing the write's resourceVersion does not count.
// Released by its factory, it runs the waiters left.
func TestWhenProcessedPerNamespaceOnARealServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := testkit.Namespace(t, "progress-a-"), testkit.Namespace(t, "progress-b-")
	f := newFactory(t, testkit.Env(t).Config, clientgoscheme.Scheme, informer.WithNamespaces(a, b))
	inf, err := informer.For[*corev1.ConfigMap](f, "", object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	hold := newHoldBack(a, "w")
	if err := inf.SetTransform(hold.transform); err != nil {
		t.Fatal(err)
	}
	reg, err := inf.AddHandler(nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	defer startFactory(f, ctx)()
	defer cancel()
	defer hold.let()
	syncIn(t, inf)

	inA := createConfigMap(t, a, "w")
	inB := createConfigMap(t, b, "v") // later than inA
	check := newOnProcessed(t, inf, inA)
	if _, waiting := inf.WhenProcessed(a, inA.ResourceVersion, check.run); !waiting {
		t.Fatal("not waiting for namespace a's held-back write")
	}
	testkit.Eventually(t, 30*time.Second, "namespace b past both writes", func() bool {
		return inf.HasProcessed(b, inB.ResourceVersion)
	})
	if inf.HasProcessed(a, inA.ResourceVersion) || inf.HasProcessed("", inA.ResourceVersion) || check.runs.Load() != 0 {
		t.Fatal("namespace b's progress counted for namespace a")
	}
	if _, waiting := inf.WhenProcessed(b, inA.ResourceVersion, check.run); waiting {
		t.Fatal("waiting on namespace b, which is past the write")
	}
	hold.let()
	check.wait("namespace a's write let through")

	far := "999999999999"
	var runs atomic.Int32
	if _, waiting := inf.WhenProcessed(a, far, func() { runs.Add(1) }); !waiting {
		t.Fatalf("not waiting for %s", far)
	}
	reg.Remove() // the last handler: the factory releases the informer
	if !inf.Released() || runs.Load() != 1 {
		t.Fatalf("released %v; the waiter ran %d times, want once", inf.Released(), runs.Load())
	}
	if _, waiting := inf.WhenProcessed(a, far, func() { runs.Add(1) }); waiting {
		t.Fatal("waiting on a released informer")
	}
}
