package operatortest

import (
	"fmt"
	"strings"
	"testing"
)

// lines is a testing.TB that keeps what is logged to it.
type lines struct {
	testing.TB
	logged []string
}

func (l *lines) Helper()         {}
func (l *lines) Log(args ...any) { l.logged = append(l.logged, fmt.Sprint(args...)) }

// The manager's log goes to the test's log until the test ends; after that
// it is dropped, since t.Log would panic.
func TestLogEndsWithTheTest(t *testing.T) {
	rec := &lines{}
	l := newTestLog(rec)
	log := l.logger()
	log.Info("reconciled", "object", "ns/web")
	log.V(1).Info("too detailed")
	l.close()
	log.Info("after the test")
	if len(rec.logged) != 1 || !strings.Contains(rec.logged[0], `"msg"="reconciled" "object"="ns/web"`) {
		t.Fatalf("logged %q, want the first line only", rec.logged)
	}
}
