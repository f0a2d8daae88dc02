package operatortest

import (
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
)

// testLog is the manager's log: its lines go to t.Log, so that go test
// shows them for a failing test (a reconcile's error, a cache that cannot
// list) and hides them otherwise. Lines logged after the test has ended are
// dropped, since t.Log would panic. Info lines of a V level above verbosity
// are dropped too; error lines never are.
type testLog struct {
	t         testing.TB
	verbosity int
	mu        sync.RWMutex // held for reading while a line is logged
	over      bool
}

func newTestLog(t testing.TB, verbosity int) *testLog {
	return &testLog{t: t, verbosity: verbosity}
}

func (l *testLog) logger() logr.Logger {
	return testr.NewWithInterface(l, testr.Options{LogTimestamp: true, Verbosity: l.verbosity})
}

// Helper and Log make testLog a testr.TestingT.
func (l *testLog) Helper() { l.t.Helper() }

func (l *testLog) Log(args ...any) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if !l.over {
		l.t.Log(args...)
	}
}

// close drops every later line; a line being logged finishes first.
func (l *testLog) close() {
	l.mu.Lock()
	l.over = true
	l.mu.Unlock()
}
