package controller

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/handler"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reconcile"
	"github.com/steadyctl/steady/workqueue"
)

// funcSource runs attach on the controller's queue when attached, and
// reports synced only once release is closed: what attach adds is all
// queued before a worker runs.
type funcSource struct {
	attach  func(q handler.Queue)
	release chan struct{}
}

func (s *funcSource) Name() string { return "func" }
func (s *funcSource) HasSynced() bool {
	select {
	case <-s.release:
		return true
	default:
		return false
	}
}
func (s *funcSource) Attach(_ context.Context, q handler.Queue) (func(), error) {
	s.attach(q)
	return func() {}, nil
}

// recording reports each reconcile's request and reasons, in order.
type recording struct {
	mu    sync.Mutex
	reqs  []string
	why   []reconcile.Reasons
	calls chan struct{}
}

func newRecording() *recording { return &recording{calls: make(chan struct{}, 100)} }

func (r *recording) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	LoggerFrom(ctx).Info("reconciling")
	r.mu.Lock()
	r.reqs, r.why = append(r.reqs, req.Name), append(r.why, reconcile.ReasonsFrom(ctx))
	r.mu.Unlock()
	r.calls <- struct{}{}
	return reconcile.Result{}, nil
}

// wait waits for n reconciles and returns the requests and reasons so far.
func (r *recording) wait(t *testing.T, n int) ([]string, []reconcile.Reasons) {
	t.Helper()
	for range n {
		select {
		case <-r.calls:
		case <-time.After(10 * time.Second):
			t.Fatalf("fewer than %d reconciles", n)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs), slices.Clone(r.why)
}

// run starts c with src until the test ends.
func run(t *testing.T, c *Controller, src Source) {
	t.Helper()
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// TestReasonsMergeIntoOneReconcile adds one request twice, for two
// reasons, before the workers start: it is reconciled once, with both
// reasons in its context and in its log line.
func TestReasonsMergeIntoOneReconcile(t *testing.T) {
	var logMu sync.Mutex
	var lines []string
	log := funcr.New(func(_, args string) { logMu.Lock(); lines = append(lines, args); logMu.Unlock() }, funcr.Options{})
	rec := newRecording()
	c, err := New("reasons", rec, WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	src := &funcSource{release: make(chan struct{}), attach: func(q handler.Queue) {
		handler.AddWithOpts(q, handler.AddOpts{Reasons: reconcile.PrimaryUpdated}, req("a"))
		handler.AddWithOpts(q, handler.AddOpts{Reasons: reconcile.OwnedDeleted}, req("a"))
		q.Add(req("b")) // after "a": once it is reconciled, "a" is not reconciled again
	}}
	close(src.release)
	run(t, c, src)
	reqs, why := rec.wait(t, 2)
	if !slices.Equal(reqs, []string{"a", "b"}) {
		t.Fatalf("reconciled %v, want a once, then b", reqs)
	}
	if want := reconcile.PrimaryUpdated | reconcile.OwnedDeleted; why[0] != want {
		t.Errorf("a's reasons = %v, want %v", why[0], want)
	}
	if why[1] != reconcile.External {
		t.Errorf("b's reasons (a plain Add) = %v, want external", why[1])
	}
	logMu.Lock()
	defer logMu.Unlock()
	var found bool
	for _, l := range lines {
		if strings.Contains(l, `"msg"="reconciling"`) && strings.Contains(l, `"name"="a"`) {
			found = true
			if !strings.Contains(l, `"reasons"="primary_updated,owned_deleted"`) {
				t.Errorf("a's log line lacks its reasons: %s", l)
			}
		}
	}
	if !found {
		t.Fatalf("no log line of a's reconcile in %q", lines)
	}
}

// TestRequeueReasons checks that a retry after an error says so, and a
// RequeueAfter too.
func TestRequeueReasons(t *testing.T) {
	h := start(t,
		func() (reconcile.Result, error) { return reconcile.Result{}, errors.New("boom") },
		func() (reconcile.Result, error) { return reconcile.Result{RequeueAfter: time.Minute}, nil },
	)
	h.expectCall()
	h.step(time.Second)
	h.expectCall()
	h.step(time.Minute)
	h.expectCall()
	h.stop()
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	want := []reconcile.Reasons{reconcile.External, reconcile.ErrorRequeue, reconcile.RequeueAfter}
	if !slices.Equal(h.r.why, want) {
		t.Fatalf("reasons of the three reconciles = %v, want %v", h.r.why, want)
	}
}

// TestPlainQueueHasNoReasons: WithPriorityQueue(false) reconciles the
// same, without reasons.
func TestPlainQueueHasNoReasons(t *testing.T) {
	rec := newRecording()
	c, err := New("plain", rec, WithPriorityQueue(false))
	if err != nil {
		t.Fatal(err)
	}
	src := &funcSource{release: make(chan struct{}), attach: func(q handler.Queue) {
		handler.AddWithOpts(q, handler.AddOpts{Reasons: reconcile.PrimaryUpdated}, req("a"))
	}}
	close(src.release)
	run(t, c, src)
	if _, why := rec.wait(t, 1); why[0] != 0 {
		t.Fatalf("reasons with a plain queue = %v, want none", why[0])
	}
}

// TestFairnessSharesWorkersByNamespace queues ten requests of one
// namespace, then one of another, before the workers start: with
// WithFairness the other namespace's is the second reconciled, without
// it the eleventh.
func TestFairnessSharesWorkersByNamespace(t *testing.T) {
	for _, fair := range []bool{true, false} {
		rec := newRecording()
		c, err := New("fair", rec, WithFairness(fair))
		if err != nil {
			t.Fatal(err)
		}
		src := &funcSource{release: make(chan struct{}), attach: func(q handler.Queue) {
			for _, name := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"} {
				q.Add(req(name))
			}
			quiet := req("quiet")
			quiet.Namespace = "quiet"
			q.Add(quiet)
		}}
		close(src.release)
		run(t, c, src)
		reqs, _ := rec.wait(t, 11)
		want := 1
		if !fair {
			want = 10
		}
		if got := slices.Index(reqs, "quiet"); got != want {
			t.Errorf("WithFairness(%v): the other namespace's request was reconciled %dth, want %dth: %v", fair, got+1, want+1, reqs)
		}
	}
}

// TestMaxWaitReachesTheQueue queues a LowPriority request before two of
// priority 0 and lets two seconds pass before the workers start: with
// WithMaxWait(time.Second) the low one is overdue and goes first; with
// the default minute it goes last.
func TestMaxWaitReachesTheQueue(t *testing.T) {
	for _, maxWait := range []time.Duration{time.Second, 0} {
		clock := clocktesting.NewFakeClock(time.Now())
		rec := newRecording()
		opts := []Option{WithClock(clock)}
		if maxWait > 0 {
			opts = append(opts, WithMaxWait(maxWait))
		}
		c, err := New("aging", rec, opts...)
		if err != nil {
			t.Fatal(err)
		}
		attached := make(chan struct{})
		src := &funcSource{release: make(chan struct{}), attach: func(q handler.Queue) {
			low := workqueue.LowPriority
			handler.AddWithOpts(q, handler.AddOpts{Priority: &low}, req("low"))
			q.Add(req("n1"))
			q.Add(req("n2"))
			close(attached)
		}}
		run(t, c, src)
		<-attached
		clock.Step(2 * time.Second)
		close(src.release)
		reqs, _ := rec.wait(t, 3)
		want := []string{"low", "n1", "n2"}
		if maxWait == 0 {
			want = []string{"n1", "n2", "low"}
		}
		if !slices.Equal(reqs, want) {
			t.Errorf("WithMaxWait(%s): reconciled %v, want %v", maxWait, reqs, want)
		}
	}
}

// TestDebounceReachesTheQueue: with WithDebounce(1s, 5s) an added request
// waits for the window on the queue's clock.
func TestDebounceReachesTheQueue(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Now())
	rec := newRecording()
	c, err := New("debounce", rec, WithClock(clock), WithDebounce(time.Second, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	src := &funcSource{release: make(chan struct{}), attach: func(q handler.Queue) {
		q.Add(req("a"))
		q.Add(req("a"))
	}}
	close(src.release)
	run(t, c, src)
	select {
	case <-rec.calls:
		t.Fatal("reconciled before the debounce window passed")
	case <-time.After(50 * time.Millisecond):
	}
	testkit.Eventually(t, 10*time.Second, "the debounce timer", clock.HasWaiters)
	clock.Step(time.Second)
	if reqs, _ := rec.wait(t, 1); !slices.Equal(reqs, []string{"a"}) {
		t.Fatalf("reconciled %v, want a once", reqs)
	}
}

// optsQueue records what reaches a handler.PriorityQueue.
type optsQueue struct {
	adds []handler.AddOpts
}

func (q *optsQueue) Add(reconcile.Request) { q.adds = append(q.adds, handler.AddOpts{}) }
func (q *optsQueue) AddWithOpts(o handler.AddOpts, _ reconcile.Request) {
	q.adds = append(q.adds, o)
}

// TestEventQueuesGiveDefaults checks the priorities and reasons an
// informer source gives its handler's adds, per event, for a handler that
// names its reasons (EnqueueObject), one that does not (Funcs with Add),
// and one with a priority of its own (AtPriority).
func TestEventQueuesGiveDefaults(t *testing.T) {
	cm := func(rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: rv}}
	}
	plainAdd := handler.Funcs[*corev1.ConfigMap]{
		CreateFunc: func(_ context.Context, e event.Create[*corev1.ConfigMap], q handler.Queue) { q.Add(req("a")) },
		UpdateFunc: func(_ context.Context, e event.Update[*corev1.ConfigMap], q handler.Queue) { q.Add(req("a")) },
	}
	low, five := workqueue.LowPriority, 5
	for _, tc := range []struct {
		name    string
		h       handler.EventHandler[*corev1.ConfigMap]
		deliver func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues)
		prio    *int
		why     reconcile.Reasons
	}{
		{"initial list", handler.EnqueueObject[*corev1.ConfigMap](), func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Create(context.Background(), event.Create[*corev1.ConfigMap]{Object: cm("1"), IsInInitialList: true}, &eq.initial)
		}, &low, reconcile.PrimaryCreated | reconcile.InitialList},
		{"create", handler.EnqueueObject[*corev1.ConfigMap](), func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Create(context.Background(), event.Create[*corev1.ConfigMap]{Object: cm("1")}, &eq.create)
		}, nil, reconcile.PrimaryCreated},
		{"resync", handler.EnqueueObject[*corev1.ConfigMap](), func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Update(context.Background(), event.Update[*corev1.ConfigMap]{ObjectOld: cm("1"), ObjectNew: cm("1")}, &eq.resync)
		}, &low, reconcile.PrimaryUpdated | reconcile.Resync},
		{"delete", handler.EnqueueObject[*corev1.ConfigMap](), func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Delete(context.Background(), event.Delete[*corev1.ConfigMap]{Key: types.NamespacedName{Namespace: "ns", Name: "a"}}, &eq.delete)
		}, nil, reconcile.PrimaryDeleted},
		{"plain Add, update", plainAdd, func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Update(context.Background(), event.Update[*corev1.ConfigMap]{ObjectOld: cm("1"), ObjectNew: cm("2")}, &eq.update)
		}, nil, reconcile.WatchedUpdated},
		{"plain Add, initial list", plainAdd, func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Create(context.Background(), event.Create[*corev1.ConfigMap]{Object: cm("1"), IsInInitialList: true}, &eq.initial)
		}, &low, reconcile.WatchedCreated | reconcile.InitialList},
		{"AtPriority, create", handler.AtPriority(plainAdd, five), func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Create(context.Background(), event.Create[*corev1.ConfigMap]{Object: cm("1")}, &eq.create)
		}, &five, reconcile.WatchedCreated},
		{"AtPriority, initial list", handler.AtPriority(plainAdd, five), func(h handler.EventHandler[*corev1.ConfigMap], eq *eventQueues) {
			h.Create(context.Background(), event.Create[*corev1.ConfigMap]{Object: cm("1"), IsInInitialList: true}, &eq.initial)
		}, &low, reconcile.WatchedCreated | reconcile.InitialList},
	} {
		var q optsQueue
		tc.deliver(tc.h, newEventQueues(&q))
		if len(q.adds) != 1 {
			t.Errorf("%s: %d adds, want 1", tc.name, len(q.adds))
			continue
		}
		got := q.adds[0]
		if (got.Priority == nil) != (tc.prio == nil) || (got.Priority != nil && *got.Priority != *tc.prio) {
			t.Errorf("%s: priority %v, want %v", tc.name, deref(got.Priority), deref(tc.prio))
		}
		if got.Reasons != tc.why {
			t.Errorf("%s: reasons %v, want %v", tc.name, got.Reasons, tc.why)
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return "nil"
	}
	return *p
}
