package operatortest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/steadyctl/steady/internal/observe"
	"github.com/steadyctl/steady/reconcile"
)

// activity follows the controllers of a run's current manager through
// internal/observe's hooks: what is queued or in progress, which requests
// fail, every request reconciled, and the invariants after each reconcile.
type activity struct {
	env        *Env
	invariants []invariant

	mu          sync.Mutex
	gen         int
	controllers map[string]controllerHooks
	inflight    int
	ends        int
	ended       chan struct{} // closed at the next end, if awaitEnds waits
	lastEnd     time.Time
	failing     map[observe.Reconcile]error
	seen        map[observe.Reconcile]bool
	violations  []string
	broken      map[string]bool // invariants found broken, reported once
}

type controllerHooks struct {
	add     func(reconcile.Request)
	pending func() int
}

func newActivity(env *Env, invariants []invariant) *activity {
	return &activity{env: env, invariants: invariants, failing: map[observe.Reconcile]error{},
		seen: map[observe.Reconcile]bool{}, broken: map[string]bool{}}
}

// hooks returns the hooks of the manager of generation gen; the reports of
// an older, crashed, manager are dropped.
func (a *activity) hooks(gen int) *observe.Hooks {
	a.mu.Lock()
	a.gen, a.controllers, a.inflight = gen, map[string]controllerHooks{}, 0
	a.failing = map[observe.Reconcile]error{}
	a.mu.Unlock()
	current := func() bool { return a.gen == gen } // a.mu is held
	return &observe.Hooks{
		ReadYourWritesBound: rywBound,
		Started: func(name string, add func(reconcile.Request), pending func() int) {
			a.mu.Lock()
			defer a.mu.Unlock()
			if current() {
				a.controllers[name] = controllerHooks{add, pending}
			}
		},
		Begin: func(string, reconcile.Request) {
			a.mu.Lock()
			defer a.mu.Unlock()
			if current() {
				a.inflight++
			}
		},
		End: func(name string, req reconcile.Request, _ reconcile.Result, err error) {
			r := observe.Reconcile{Controller: name, Request: req}
			a.mu.Lock()
			if !current() {
				a.mu.Unlock()
				return
			}
			a.inflight--
			a.ends++
			if a.ended != nil {
				close(a.ended)
				a.ended = nil
			}
			a.lastEnd = time.Now()
			a.seen[r] = true
			if err != nil && !reconcile.IsTerminal(err) {
				a.failing[r] = err
			} else {
				delete(a.failing, r)
			}
			a.mu.Unlock()
			a.check(r)
		},
	}
}

// check runs the invariants after the reconcile r.
func (a *activity) check(r observe.Reconcile) {
	for _, inv := range a.invariants {
		a.mu.Lock()
		done := a.broken[inv.name]
		a.mu.Unlock()
		if done {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := inv.check(ctx, a.env)
		cancel()
		if err != nil {
			a.mu.Lock()
			if !a.broken[inv.name] {
				a.broken[inv.name] = true
				a.violations = append(a.violations, fmt.Sprintf("invariant %q broke after controller %q reconciled %s: %v", inv.name, r.Controller, r.Request, err))
			}
			a.mu.Unlock()
		}
	}
}

// idle reports whether nothing is queued, in progress or failing, and no
// reconcile ended for quiet; else it says what is going on.
func (a *activity) idle(quiet time.Duration) (bool, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inflight > 0 {
		return false, fmt.Sprintf("%d reconcile(s) in progress", a.inflight)
	}
	for name, c := range a.controllers {
		if n := c.pending(); n > 0 {
			return false, fmt.Sprintf("controller %q has %d request(s) queued or waiting for its caches", name, n)
		}
	}
	for r, err := range a.failing {
		return false, fmt.Sprintf("controller %q keeps failing to reconcile %s: %v", r.Controller, r.Request, err)
	}
	if d := time.Since(a.lastEnd); d < quiet {
		return false, fmt.Sprintf("the last reconcile ended %v ago", d.Round(time.Millisecond))
	}
	return true, ""
}

// again queues every request reconciled in the run once more, and returns
// how many reconciles had ended before and how many it queued.
func (a *activity) again() (ends, queued int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for r := range a.seen {
		if c, ok := a.controllers[r.Controller]; ok {
			c.add(r.Request)
			queued++
		}
	}
	return a.ends, queued
}

// awaitEnds waits until n reconciles have ended or ctx is done. The
// channel is taken under a.mu with the count, so no end slips between.
func (a *activity) awaitEnds(ctx context.Context, n int) {
	for {
		a.mu.Lock()
		if a.ends >= n {
			a.mu.Unlock()
			return
		}
		if a.ended == nil {
			a.ended = make(chan struct{})
		}
		ended := a.ended
		a.mu.Unlock()
		select {
		case <-ended:
		case <-ctx.Done():
			return
		}
	}
}

func (a *activity) broke() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.violations...)
}
