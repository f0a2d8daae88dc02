package testenv

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeT records how a helper ended a test: Fatal and Skip end the calling
// goroutine, as they do on a real T.
type fakeT struct {
	testing.TB
	fatal, skip string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatal(args ...any) { f.fatal = fmt.Sprint(args...); runtime.Goexit() }

func (f *fakeT) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeT) Skip(args ...any) { f.skip = fmt.Sprint(args...); runtime.Goexit() }

// call runs helper with a fakeT on a goroutine of its own, so that Fatal
// and Skip end that goroutine rather than the test, and reports the fakeT.
func call(helper func(testing.TB)) *fakeT {
	f := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		helper(f)
	}()
	<-done
	return f
}

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	f := call(func(t testing.TB) {
		Eventually(t, 10*time.Second, "the third call", func() bool { calls++; return calls == 3 })
	})
	if f.fatal != "" || calls != 3 {
		t.Fatalf("after %d calls: fatal %q; want a return on the third call", calls, f.fatal)
	}
	calls = 0
	f = call(func(t testing.TB) {
		Eventually(t, 10*time.Second, "no error", func() error {
			if calls++; calls < 3 {
				return errors.New("not yet")
			}
			return nil
		})
	})
	if f.fatal != "" || calls != 3 {
		t.Fatalf("after %d calls: fatal %q; want a return on the third call", calls, f.fatal)
	}
}

func TestEventuallyTimesOutWithTheLastError(t *testing.T) {
	calls := 0
	f := call(func(t testing.TB) {
		Eventually(t, 20*time.Millisecond, "the answer", func() error { calls++; return fmt.Errorf("attempt %d failed", calls) })
	})
	if want := fmt.Sprintf("timed out after 20ms waiting for the answer: attempt %d failed", calls); f.fatal != want {
		t.Fatalf("failure message %q, want %q", f.fatal, want)
	}
	f = call(func(t testing.TB) {
		Eventually(t, 20*time.Millisecond, "the answer", func() bool { return false })
	})
	if want := "timed out after 20ms waiting for the answer"; f.fatal != want {
		t.Fatalf("failure message %q, want %q", f.fatal, want)
	}
}

func TestConsistentlyReturnsAfterTheDurationWhenEveryCheckHolds(t *testing.T) {
	calls := 0
	start := time.Now()
	f := call(func(t testing.TB) {
		Consistently(t, 50*time.Millisecond, "nothing changes", func() bool { calls++; return true })
	})
	if elapsed := time.Since(start); f.fatal != "" || elapsed < 50*time.Millisecond || calls < 2 {
		t.Fatalf("after %v and %d calls: fatal %q; want a return after 50ms and several calls", elapsed, calls, f.fatal)
	}
	calls = 0
	f = call(func(t testing.TB) {
		Consistently(t, 0, "nothing changes", func() error { calls++; return nil })
	})
	if f.fatal != "" || calls != 1 {
		t.Fatalf("after %d calls: fatal %q; want a return after one call", calls, f.fatal)
	}
}

func TestConsistentlyFailsAtTheFirstCheckThatDoesNotHold(t *testing.T) {
	calls := 0
	f := call(func(t testing.TB) {
		Consistently(t, 10*time.Second, "no second child is created", func() error {
			if calls++; calls == 3 {
				return errors.New("2 children")
			}
			return nil
		})
	})
	if calls != 3 || !strings.HasPrefix(f.fatal, "no second child is created stopped holding after ") ||
		!strings.HasSuffix(f.fatal, " of 10s: 2 children") {
		t.Fatalf("after %d calls: fatal %q; want a failure with the error on the third call", calls, f.fatal)
	}
	calls = 0
	f = call(func(t testing.TB) {
		Consistently(t, 10*time.Second, "the answer", func() bool { calls++; return false })
	})
	if calls != 1 || !strings.HasPrefix(f.fatal, "the answer stopped holding after ") || !strings.HasSuffix(f.fatal, " of 10s") {
		t.Fatalf("after %d calls: fatal %q; want a failure, without an error, on the first call", calls, f.fatal)
	}
}

// A control plane that cannot start fails every test that asks for it, with
// the reason, and is tried only once.
func TestControlPlaneStartFailureFailsEveryAsker(t *testing.T) {
	starts := 0
	p := &shared{start: func() (*Environment, error) {
		starts++
		return nil, errors.New("no etcd here")
	}}
	for range 2 {
		if _, err := p.get(); err == nil || !strings.Contains(err.Error(), "no etcd here") {
			t.Fatalf("get: %v, want the start error", err)
		}
	}
	if starts != 1 {
		t.Fatalf("%d starts, want 1", starts)
	}
	if err := p.stop(); err != nil {
		t.Fatalf("stop of a control plane that never started: %v", err)
	}
	if testing.Short() {
		return // must skips before it looks
	}
	for range 2 {
		f := call(func(t testing.TB) { p.must(t) })
		if f.skip != "" || !strings.Contains(f.fatal, "no etcd here") {
			t.Fatalf("must: skip %q, fatal %q; want a failure with the start error", f.skip, f.fatal)
		}
	}
}

func TestSharedSkipsUnderShort(t *testing.T) {
	if !testing.Short() {
		t.Skip("checks what -short does")
	}
	p := &shared{start: func() (*Environment, error) {
		t.Error("started a control plane under -short")
		return nil, errors.New("unreachable")
	}}
	if f := call(func(t testing.TB) { p.must(t) }); f.skip == "" || f.fatal != "" {
		t.Fatalf("must under -short: skip %q, fatal %q; want a skip", f.skip, f.fatal)
	}
}
