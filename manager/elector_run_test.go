package manager

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/internal/testkit"
)

// running is an elector's run in a goroutine of its own.
type running struct {
	*testElector
	cancel  context.CancelFunc
	leading chan context.Context // the context lead was called with
	done    chan struct{}        // closed when run returned
	err     error                // run's result, once done
}

// start runs te until the returned running's cancel.
func start(t *testing.T, te *testElector) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{testElector: te, cancel: cancel, leading: make(chan context.Context, 1), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = te.run(ctx, func(leading context.Context) { r.leading <- leading })
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// waiting waits until the elector waits on n timers of its clock: it has
// done what the last step let it do.
func (r *running) waiting(t *testing.T, n int) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, "the elector waiting on its clock", func() bool { return r.clock.Waiters() == n })
}

// elected waits for lead's call and returns its context.
func (r *running) elected(t *testing.T) context.Context {
	t.Helper()
	select {
	case ctx := <-r.leading:
		return ctx
	case <-time.After(10 * time.Second):
		t.Fatal("not elected")
		return nil
	}
}

// result waits for run's result.
func (r *running) result(t *testing.T) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return")
		return nil
	}
}

// A standby tries every retry period and takes the Lease over at its
// first attempt after the holder's record stood still for the lease
// duration.
func TestElectorStandbyTakesOver(t *testing.T) {
	api := &fakeLeases{}
	api.write(heldBy("b", t0))
	r := start(t, newTestElector(t, api, "a"))
	for range 8 { // attempts at t0, t0+2s, ... t0+14s fail
		r.waiting(t, 1)
		r.clock.Step(2 * time.Second)
	}
	r.waiting(t, 2) // the attempt at t0+16s won: the leader waits to renew
	wantRecord(t, api.lease(), "a", 15, t0.Add(16*time.Second), t0.Add(16*time.Second), 4)
	if ctx := r.elected(t); ctx.Err() != nil {
		t.Fatalf("leading context ended: %v", ctx.Err())
	}
}

// A leader that cannot renew stops leading at the renew deadline from its
// last renewal, not before, and leaves the Lease alone.
func TestElectorStopsLeadingAtTheRenewDeadline(t *testing.T) {
	for _, c := range []struct {
		name    string
		fault   func(*fakeLeases)
		waiters int // on the clock while the renewals fail: a sleep and the deadline, or the deadline alone
	}{
		{"errors", func(f *fakeLeases) { f.setDown(apierrors.NewServiceUnavailable("etcd is away")) }, 2},
		{"requests hang", func(f *fakeLeases) { f.setHang(true) }, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := &fakeLeases{}
			r := start(t, newTestElector(t, api, "a"))
			leading := r.elected(t)
			r.waiting(t, 2)
			r.clock.Step(2 * time.Second) // a renewal at t0+2s
			r.waiting(t, 2)
			c.fault(api)
			faulted := api.lease()
			for range 4 { // failed renewals at t0+4s ... t0+10s
				r.clock.Step(2 * time.Second)
				r.waiting(t, c.waiters)
				if leading.Err() != nil {
					t.Fatalf("stopped leading at t0+%v, before the renew deadline t0+12s", r.clock.Since(t0))
				}
			}
			r.clock.Step(2 * time.Second) // t0+12s: the deadline
			if err := r.result(t); !errors.Is(err, errNotLeading) {
				t.Fatalf("run returned %v, want errNotLeading", err)
			}
			if leading.Err() == nil {
				t.Fatal("still leading after run returned")
			}
			if after := api.lease(); after.ResourceVersion != faulted.ResourceVersion {
				t.Fatalf("Lease after losing it: holder %v at resourceVersion %s: want it left as it was at %s", ptr.Deref(after.Spec.HolderIdentity, ""), after.ResourceVersion, faulted.ResourceVersion)
			}
		})
	}
}

// A leader that finds the Lease held by another, against the rules, stops
// leading at once rather than at the renew deadline, and leaves the Lease
// to its holder.
func TestElectorStopsLeadingWhenAnotherHolds(t *testing.T) {
	api := &fakeLeases{}
	r := start(t, newTestElector(t, api, "a"))
	leading := r.elected(t)
	r.waiting(t, 2)
	api.write(heldBy("intruder", t0.Add(time.Hour)))
	taken := api.lease()
	r.clock.Step(2 * time.Second)
	if err := r.result(t); !errors.Is(err, errNotLeading) || !strings.Contains(err.Error(), "held by intruder") {
		t.Fatalf("run returned %v, want errNotLeading naming the holder", err)
	}
	if leading.Err() == nil {
		t.Fatal("still leading after run returned")
	}
	if got := api.lease(); got.ResourceVersion != taken.ResourceVersion {
		t.Fatalf("Lease after losing it: holder %v at resourceVersion %s: want the intruder's, untouched at %s", got.Spec.HolderIdentity, got.ResourceVersion, taken.ResourceVersion)
	}
}

// A leader leaving releases the Lease: no holder, a lease duration of 1 s,
// the transitions kept; a standby takes it at its next attempt.
func TestElectorReleasesOnCancel(t *testing.T) {
	api := &fakeLeases{}
	a := start(t, newTestElector(t, api, "a"))
	leading := a.elected(t)
	a.waiting(t, 2)
	b := start(t, newTestElector(t, api, "b"))
	b.waiting(t, 1)
	a.cancel()
	if err := a.result(t); err != nil {
		t.Fatalf("run returned %v, want nil", err)
	}
	if leading.Err() == nil {
		t.Fatal("still leading after run returned")
	}
	wantRecord(t, api.lease(), "", 1, t0, t0, 0)
	b.clock.Step(2 * time.Second)
	b.elected(t)
	wantRecord(t, api.lease(), "b", 15, t0.Add(2*time.Second), t0.Add(2*time.Second), 1)
}

// A release that conflicts reads the Lease again: it releases it if it is
// still this leader's, and leaves it alone if another holds it.
func TestElectorReleaseAfterAConflict(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*coordinationv1.Lease)
		holder string
	}{
		{"still held", func(l *coordinationv1.Lease) { l.Labels = map[string]string{"x": "y"} }, ""},
		{"taken over", heldBy("b", t0), "b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := &fakeLeases{}
			a := start(t, newTestElector(t, api, "a"))
			a.elected(t)
			a.waiting(t, 2)
			api.write(c.change)
			api.takeCalls()
			a.cancel()
			if err := a.result(t); err != nil {
				t.Fatalf("run returned %v, want nil", err)
			}
			if h := ptr.Deref(api.lease().Spec.HolderIdentity, "<nil>"); h != c.holder {
				t.Fatalf("holder after the release %q: want %q", h, c.holder)
			}
			want := []string{"update", "get"}
			if c.holder == "" {
				want = append(want, "update")
			}
			if got := api.takeCalls(); len(got) != len(want) {
				t.Fatalf("calls %v: want %v", got, want)
			}
			if errs := a.sink.logged(); len(errs) != 0 {
				t.Fatalf("errors logged: %q", errs)
			}
		})
	}
}

// A candidate cancelled before it was elected writes nothing more.
func TestElectorCancelledStandbyWritesNothing(t *testing.T) {
	api := &fakeLeases{}
	api.write(heldBy("b", t0))
	r := start(t, newTestElector(t, api, "a"))
	r.waiting(t, 1)
	rv := api.lease().ResourceVersion
	r.cancel()
	if err := r.result(t); err != nil {
		t.Fatalf("run returned %v, want nil", err)
	}
	if got := api.lease(); got.ResourceVersion != rv || ptr.Deref(got.Spec.HolderIdentity, "") != "b" {
		t.Fatalf("Lease held by %v at %s: want b's, untouched at %s", got.Spec.HolderIdentity, got.ResourceVersion, rv)
	}
	select {
	case <-r.leading:
		t.Fatal("a standby led")
	default:
	}
}
