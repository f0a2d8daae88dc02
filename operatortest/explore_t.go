package operatortest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// runT is the testing.TB the test's steps get in an explored run: it keeps
// their failures and log for the run's report instead of failing the
// test, so that a check that fails under a perturbation is a finding.
// Fatal and its kin end the steps' goroutine, as testing's do.
type runT struct {
	testing.TB // the explored test, for what runT leaves to it
	name       string
	ctx        context.Context
	cancel     context.CancelFunc

	mu       sync.Mutex
	failed   bool
	skipped  bool
	failures []string
	lines    []string // the last maxLines lines logged
	cleanups []func()
}

// maxLines bounds the log a run keeps: a controller that never settles
// logs without end.
const maxLines = 400

func newRunT(parent testing.TB, name string) *runT {
	ctx, cancel := context.WithCancel(context.Background())
	return &runT{TB: parent, name: name, ctx: ctx, cancel: cancel}
}

func (t *runT) Name() string             { return t.name }
func (t *runT) Context() context.Context { return t.ctx }
func (t *runT) Helper()                  {}

func (t *runT) Log(args ...any) { t.line(fmt.Sprintln(args...)) }

func (t *runT) Logf(format string, args ...any) { t.line(fmt.Sprintf(format, args...)) }

func (t *runT) line(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == maxLines {
		t.lines = append(t.lines[:0], t.lines[maxLines/2:]...)
	}
	t.lines = append(t.lines, s)
}

func (t *runT) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}

func (t *runT) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

func (t *runT) FailNow() {
	t.Fail()
	runtime.Goexit()
}

func (t *runT) failure(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
	t.failures = append(t.failures, s)
}

func (t *runT) Error(args ...any)                 { t.failure(fmt.Sprint(args...)) }
func (t *runT) Errorf(format string, args ...any) { t.failure(fmt.Sprintf(format, args...)) }

func (t *runT) Fatal(args ...any) {
	t.failure(fmt.Sprint(args...))
	runtime.Goexit()
}

func (t *runT) Fatalf(format string, args ...any) {
	t.failure(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (t *runT) SkipNow() {
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	runtime.Goexit()
}

func (t *runT) Skip(args ...any) {
	t.Log(args...)
	t.SkipNow()
}

func (t *runT) Skipf(format string, args ...any) {
	t.Logf(format, args...)
	t.SkipNow()
}

func (t *runT) Skipped() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.skipped
}

func (t *runT) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// runSteps calls f on a goroutine of its own, so that Fatal can end it,
// and returns when it has.
func (t *runT) runSteps(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// finish cancels the context and runs the cleanups, last first.
func (t *runT) finish() {
	t.cancel()
	t.mu.Lock()
	cs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		t.runSteps(cs[i])
	}
}

// report returns the failures and the log.
func (t *runT) report() (failures, lines []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.failures...), append([]string(nil), t.lines...)
}
