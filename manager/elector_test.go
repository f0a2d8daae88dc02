package manager

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

var leasesResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// fakeLeases is a scripted leaseAPI holding one Lease, with the API
// server's rules on resourceVersions and its status errors.
type fakeLeases struct {
	mu     sync.Mutex
	stored *coordinationv1.Lease // nil: none
	rv     int
	calls  []string           // the verbs called, in order
	script map[string][]error // the next errors of each verb, in order
	down   error              // the error of every call, if set
	hang   bool               // calls wait for their context to end
	before func(verb string)  // called before each call, unlocked
}

// fail makes the next calls of verb fail with errs, one each.
func (f *fakeLeases) fail(verb string, errs ...error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.script == nil {
		f.script = map[string][]error{}
	}
	f.script[verb] = append(f.script[verb], errs...)
}

// setDown makes every call fail with err; nil ends that.
func (f *fakeLeases) setDown(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = err
}

// setHang makes calls wait for their context to end.
func (f *fakeLeases) setHang(h bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hang = h
}

// call runs the common part of a call: the hook, the log, the scripted
// failures.
func (f *fakeLeases) call(ctx context.Context, verb string) error {
	if f.before != nil {
		f.before(verb)
	}
	f.mu.Lock()
	f.calls = append(f.calls, verb)
	hang := f.hang
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return f.down
	}
	if errs := f.script[verb]; len(errs) > 0 {
		f.script[verb] = errs[1:]
		return errs[0]
	}
	return nil
}

// store stores l as a new version of the Lease; f.mu is held.
func (f *fakeLeases) store(l *coordinationv1.Lease) *coordinationv1.Lease {
	f.rv++
	l = l.DeepCopy()
	l.ResourceVersion = strconv.Itoa(f.rv)
	f.stored = l
	return l.DeepCopy()
}

func (f *fakeLeases) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	if err := f.call(ctx, "get"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stored == nil {
		return nil, apierrors.NewNotFound(leasesResource, name)
	}
	return f.stored.DeepCopy(), nil
}

func (f *fakeLeases) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := f.call(ctx, "create"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stored != nil {
		return nil, apierrors.NewAlreadyExists(leasesResource, l.Name)
	}
	return f.store(l), nil
}

func (f *fakeLeases) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := f.call(ctx, "update"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.stored == nil:
		return nil, apierrors.NewNotFound(leasesResource, l.Name)
	case l.ResourceVersion != f.stored.ResourceVersion:
		return nil, apierrors.NewConflict(leasesResource, l.Name, errors.New("the object has been modified"))
	}
	return f.store(l), nil
}

// write changes the stored Lease as another writer would.
func (f *fakeLeases) write(change func(*coordinationv1.Lease)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.stored.DeepCopy()
	if l == nil {
		l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "lock", Namespace: "ns"}}
	}
	change(l)
	f.store(l)
}

// lease returns the stored Lease.
func (f *fakeLeases) lease() *coordinationv1.Lease {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stored.DeepCopy()
}

// takeCalls returns the verbs called since the last takeCalls.
func (f *fakeLeases) takeCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

// heldBy returns a Lease change: held by holder, renewed at renewed.
func heldBy(holder string, renewed time.Time) func(*coordinationv1.Lease) {
	return func(l *coordinationv1.Lease) {
		t := metav1.NewMicroTime(renewed)
		l.Spec = coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To(int32(15)),
			AcquireTime: &t, RenewTime: &t, LeaseTransitions: ptr.To(int32(3))}
	}
}

// logSink counts the error lines logged, and keeps them.
type logSink struct {
	mu     sync.Mutex
	errors []string
}

func (s *logSink) Init(logr.RuntimeInfo)          {}
func (s *logSink) Enabled(int) bool               { return true }
func (s *logSink) Info(int, string, ...any)       {}
func (s *logSink) WithValues(...any) logr.LogSink { return s }
func (s *logSink) WithName(string) logr.LogSink   { return s }
func (s *logSink) Error(err error, msg string, kv ...any) {
	s.mu.Lock()
	s.errors = append(s.errors, msg+": "+err.Error())
	s.mu.Unlock()
}

func (s *logSink) logged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errors...)
}

// t0 is the fake clock's start: any instant serves, since the elector
// never compares a Lease's times with its clock.
var t0 = time.Date(2031, 5, 17, 9, 0, 0, 0, time.UTC)

// testElector is an elector of identity on api with a fake clock and the
// default timings (15 s, 10 s, 2 s), without jitter; refusals and error
// logs are kept.
type testElector struct {
	*elector
	clock   *testingclock.FakeClock
	sink    *logSink
	mu      sync.Mutex
	refusal []error
}

func newTestElector(t *testing.T, api leaseAPI, identity string) *testElector {
	t.Helper()
	e, err := newElector(api, "ns", "lock", identity, 15*time.Second, 10*time.Second, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	te := &testElector{elector: e, clock: testingclock.NewFakeClock(t0), sink: &logSink{}}
	e.clock, e.log = te.clock, logr.New(te.sink)
	e.jitter = func(d time.Duration) time.Duration { return d }
	e.refused = func(err error) { te.mu.Lock(); te.refusal = append(te.refusal, err); te.mu.Unlock() }
	return te
}

func (te *testElector) refusals() []error {
	te.mu.Lock()
	defer te.mu.Unlock()
	return append([]error(nil), te.refusal...)
}

// wantRecord fails the test unless l's spec is the record of holder,
// acquired at acquired, renewed at renewed, after transitions
// transitions, with lease duration seconds seconds.
func wantRecord(t *testing.T, l *coordinationv1.Lease, holder string, seconds int32, acquired, renewed time.Time, transitions int32) {
	t.Helper()
	s := l.Spec
	switch {
	case s.HolderIdentity == nil || *s.HolderIdentity != holder,
		ptr.Deref(s.LeaseDurationSeconds, -1) != seconds,
		s.AcquireTime == nil || !s.AcquireTime.Time.Equal(acquired),
		s.RenewTime == nil || !s.RenewTime.Time.Equal(renewed),
		ptr.Deref(s.LeaseTransitions, -1) != transitions:
		t.Fatalf("Lease spec: holder %v, %v s, acquired %v, renewed %v, %v transitions: want %q, %d s, %v, %v, %d",
			ptr.Deref(s.HolderIdentity, "<nil>"), ptr.Deref(s.LeaseDurationSeconds, -1), s.AcquireTime, s.RenewTime, ptr.Deref(s.LeaseTransitions, -1),
			holder, seconds, acquired, renewed, transitions)
	}
}

func TestElectorCreatesAnAbsentLease(t *testing.T) {
	api := &fakeLeases{}
	e := newTestElector(t, api, "a")
	if !e.try(context.Background()) {
		t.Fatal("no Lease: not acquired")
	}
	l := api.lease()
	if l.Name != "lock" || l.Namespace != "ns" {
		t.Fatalf("created Lease %s/%s: want ns/lock", l.Namespace, l.Name)
	}
	wantRecord(t, l, "a", 15, t0, t0, 0)
	if c := api.takeCalls(); strings.Join(c, ",") != "get,create" {
		t.Fatalf("calls %v: want get, create", c)
	}
}

// A Lease another candidate created first is a lost race: no error logged.
func TestElectorLosesTheCreateRaceQuietly(t *testing.T) {
	api := &fakeLeases{}
	a, b := newTestElector(t, api, "a"), newTestElector(t, api, "b")
	api.before = func(verb string) {
		if verb == "create" {
			api.before = nil
			if !b.try(context.Background()) {
				t.Error("b did not create the Lease")
			}
		}
	}
	if a.try(context.Background()) {
		t.Fatal("a acquired a Lease b created first")
	}
	wantRecord(t, api.lease(), "b", 15, t0, t0, 0)
	if errs := a.sink.logged(); len(errs) != 0 {
		t.Fatalf("a lost race logged errors: %q", errs)
	}
}

// A released Lease (no holder) is taken at once, as a new term.
func TestElectorTakesAReleasedLease(t *testing.T) {
	api := &fakeLeases{}
	api.write(heldBy("", t0.Add(-time.Hour)))
	e := newTestElector(t, api, "a")
	if !e.try(context.Background()) {
		t.Fatal("released Lease: not acquired")
	}
	wantRecord(t, api.lease(), "a", 15, t0, t0, 4)
}

// A held Lease is taken once its record has stood still for its lease
// duration on the candidate's clock, whatever its times say: each change
// of the record starts the wait again; a change of anything else does not.
func TestElectorWaitsForAHeldLeaseToStandStill(t *testing.T) {
	for _, renewed := range []time.Time{t0.Add(-24 * time.Hour), t0.Add(time.Hour)} {
		t.Run("renewTime "+renewed.Sub(t0).String(), func(t *testing.T) {
			api := &fakeLeases{}
			api.write(heldBy("b", renewed))
			e := newTestElector(t, api, "a")
			ctx := context.Background()
			step := func(d time.Duration, want bool) {
				t.Helper()
				e.clock.Step(d)
				if got := e.try(ctx); got != want {
					t.Fatalf("at t0+%v: acquired %v, want %v", e.clock.Since(t0), got, want)
				}
			}
			step(0, false)
			step(14*time.Second, false)
			api.write(func(l *coordinationv1.Lease) { l.Spec.RenewTime = &metav1.MicroTime{Time: renewed.Add(time.Second)} })
			step(time.Second, false) // seen changed at t0+15s
			api.write(func(l *coordinationv1.Lease) { l.Labels = map[string]string{"x": "y"} })
			step(14*time.Second, false)
			step(time.Second, true) // t0+30s
			wantRecord(t, api.lease(), "a", 15, e.clock.Now(), e.clock.Now(), 4)
		})
	}
}

// The leader renews with one request, keeping its term's acquire time and
// transitions.
func TestElectorRenewsWithOneRequest(t *testing.T) {
	api := &fakeLeases{}
	e := newTestElector(t, api, "a")
	ctx := context.Background()
	if !e.try(ctx) {
		t.Fatal("not acquired")
	}
	api.takeCalls()
	for i := 1; i <= 3; i++ {
		e.clock.Step(2 * time.Second)
		if !e.try(ctx) {
			t.Fatalf("renewal %d failed", i)
		}
		wantRecord(t, api.lease(), "a", 15, t0, e.clock.Now(), 0)
	}
	if c := api.takeCalls(); strings.Join(c, ",") != "update,update,update" {
		t.Fatalf("calls %v: want one update a renewal", c)
	}
}

// A renewal that conflicts, the Lease written since by someone who left it
// to the leader, reads it again and renews it; no error is logged.
func TestElectorRenewsAfterAConflict(t *testing.T) {
	api := &fakeLeases{}
	e := newTestElector(t, api, "a")
	ctx := context.Background()
	if !e.try(ctx) {
		t.Fatal("not acquired")
	}
	api.write(func(l *coordinationv1.Lease) { l.Labels = map[string]string{"x": "y"} })
	api.takeCalls()
	e.clock.Step(2 * time.Second)
	if !e.try(ctx) {
		t.Fatal("renewal after a conflict failed")
	}
	wantRecord(t, api.lease(), "a", 15, t0, e.clock.Now(), 0)
	if c := api.takeCalls(); strings.Join(c, ",") != "update,get,update" {
		t.Fatalf("calls %v: want the conflicting update, a get, an update", c)
	}
	if errs := e.sink.logged(); len(errs) != 0 {
		t.Fatalf("a conflict logged errors: %q", errs)
	}
}

// A leader whose Lease another holder took does not renew it.
func TestElectorYieldsToAnotherHolder(t *testing.T) {
	api := &fakeLeases{}
	e := newTestElector(t, api, "a")
	ctx := context.Background()
	if !e.try(ctx) {
		t.Fatal("not acquired")
	}
	api.write(heldBy("b", t0))
	e.clock.Step(2 * time.Second)
	if e.try(ctx) {
		t.Fatal("renewed a Lease b holds")
	}
	wantRecord(t, api.lease(), "b", 15, t0, t0, 3)
}

// Errors other than conflicts are logged, and fail the attempt.
func TestElectorLogsOtherErrors(t *testing.T) {
	api := &fakeLeases{}
	e := newTestElector(t, api, "a")
	api.fail("get", apierrors.NewServiceUnavailable("etcd is away"))
	if e.try(context.Background()) {
		t.Fatal("acquired on an error")
	}
	if errs := e.sink.logged(); len(errs) != 1 || !strings.Contains(errs[0], "etcd is away") {
		t.Fatalf("logged errors %q: want the get's", errs)
	}
}

// A refusal of the API server fails the manager, naming the verb, the Lease
// and the rule to grant.
func TestElectorReportsRefusals(t *testing.T) {
	forbidden := apierrors.NewForbidden(leasesResource, "lock", errors.New("no RBAC"))
	for _, verb := range []string{"get", "create", "update"} {
		t.Run(verb, func(t *testing.T) {
			api := &fakeLeases{}
			if verb == "update" {
				api.write(heldBy("", t0))
			}
			api.fail(verb, forbidden)
			e := newTestElector(t, api, "a")
			if e.try(context.Background()) {
				t.Fatal("acquired on a refusal")
			}
			r := e.refusals()
			if len(r) != 1 || !apierrors.IsForbidden(r[0]) ||
				!strings.Contains(r[0].Error(), "refuses to "+verb+" the Lease ns/lock") || !strings.Contains(r[0].Error(), "apiGroups: coordination.k8s.io") {
				t.Fatalf("refusals %v: want one naming the %s, the Lease and the rule", r, verb)
			}
		})
	}
}

func TestNewElectorChecksTimings(t *testing.T) {
	for _, c := range []struct {
		lease, renew, retry time.Duration
		want                string
	}{
		{15 * time.Second, 10 * time.Second, 2 * time.Second, ""},
		{900 * time.Millisecond, 500 * time.Millisecond, 100 * time.Millisecond, "whole seconds"},
		{10 * time.Second, 10 * time.Second, 2 * time.Second, "more than the RenewDeadline"},
		{15 * time.Second, 10 * time.Second, 0, "more than 0"},
		{15 * time.Second, 2400 * time.Millisecond, 2 * time.Second, "1.2 times the RetryPeriod"},
	} {
		_, err := newElector(&fakeLeases{}, "ns", "lock", "a", c.lease, c.renew, c.retry)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("newElector(%v, %v, %v): %v: want %q", c.lease, c.renew, c.retry, err, c.want)
		}
	}
}

// A candidate waits between 1 and 2.2 retry periods between attempts.
func TestElectorJitter(t *testing.T) {
	e, err := newElector(&fakeLeases{}, "ns", "lock", "a", 15*time.Second, 10*time.Second, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := time.Hour, time.Duration(0)
	for range 1000 {
		d := e.jitter(2 * time.Second)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 2*time.Second || hi >= 4400*time.Millisecond || hi-lo < time.Second {
		t.Fatalf("waits from %v to %v: want spread over [2s, 4.4s)", lo, hi)
	}
}
