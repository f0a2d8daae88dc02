package testenv

import (
	"errors"
	"testing"
	"time"
)

// Condition is what Eventually and Consistently poll: a func() bool, or a
// func() error that returns nil while the condition holds and otherwise
// says why not.
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
	check := checkOf(cond)
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

// Consistently checks cond at once and then every few milliseconds (the
// interval Eventually backs off to) for duration, a last time once duration
// has passed, and returns then. At the first check that does not hold it
// fails the test with "<what> stopped holding after <elapsed> of
// <duration>" and, for a func() error, cond's error. It is for what must not
// happen — a second child, an update of an object already up to date —
// once the test has seen, with Eventually, that the controller has done
// its work; a duration of zero or less checks cond once. Like t.Fatal, call
// it from the test's goroutine:
//
//	testenv.Eventually(t, 10*time.Second, "the child", childExists)
//	testenv.Consistently(t, 200*time.Millisecond, "no second child is created", func() error {
//		n, err := countChildren()
//		if err == nil && n != 1 {
//			err = fmt.Errorf("%d children", n)
//		}
//		return err
//	})
func Consistently[C Condition](t testing.TB, duration time.Duration, what string, cond C) {
	t.Helper()
	check := checkOf(cond)
	start := time.Now()
	deadline := start.Add(duration)
	for {
		if err := check(); err != nil {
			elapsed := time.Since(start).Round(time.Millisecond)
			if err == errNotYet {
				t.Fatalf("%s stopped holding after %v of %v", what, elapsed, duration)
			}
			t.Fatalf("%s stopped holding after %v of %v: %v", what, elapsed, duration, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, maxInterval))
	}
}

// checkOf turns a Condition into a func() error; a func() bool's false is
// errNotYet.
func checkOf[C Condition](cond C) func() error {
	switch c := any(cond).(type) {
	case func() bool:
		return func() error {
			if c() {
				return nil
			}
			return errNotYet
		}
	case func() error:
		return c
	}
	panic("unreachable: Condition is func() bool or func() error")
}

// errNotYet is a func() bool condition's false.
var errNotYet = errors.New("condition not met")
