package testenv

import (
	"errors"
	"testing"
	"time"
)

// Condition is what Eventually polls: a func() bool, or a func() error that
// returns nil once the condition holds and otherwise says why not.
type Condition interface {
	func() bool | func() error
}

// Polling intervals of Eventually: the first retry comes at once, for
// conditions another goroutine is about to make true; later ones back off
// to a few milliseconds, which keeps the wait within a few milliseconds of
// the moment the condition holds while a condition that asks the API server
// costs it at most a hundred requests a second.
const (
	firstInterval = time.Millisecond
	maxInterval   = 10 * time.Millisecond
)

// Eventually polls cond until it holds and fails the test if it still does
// not after timeout, with "timed out after <timeout> waiting for <what>"
// and, for a func() error, cond's last error. It is for states that another
// goroutine or process brings about — a reconcile's write, a cache catching
// up — never a substitute for stepping a fake clock. Like t.Fatal, call it
// from the test's goroutine.
func Eventually[C Condition](t testing.TB, timeout time.Duration, what string, cond C) {
	t.Helper()
	var check func() error
	switch c := any(cond).(type) {
	case func() bool:
		check = func() error {
			if c() {
				return nil
			}
			return errNotYet
		}
	case func() error:
		check = c
	}
	deadline := time.Now().Add(timeout)
	interval := firstInterval
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			if err == errNotYet {
				t.Fatalf("timed out after %v waiting for %s", timeout, what)
			}
			t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(interval)
		interval = min(2*interval, maxInterval)
	}
}

// errNotYet is a func() bool condition's false.
var errNotYet = errors.New("condition not met")
