package operatortest

import (
	"errors"
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
	l := newTestLog(rec, 0)
	log := l.logger()
	log.Info("reconciled", "object", "ns/web")
	log.V(1).Info("too detailed")
	l.close()
	log.Info("after the test")
	if len(rec.logged) != 1 || !strings.Contains(rec.logged[0], `"msg"="reconciled" "object"="ns/web"`) {
		t.Fatalf("logged %q, want the first line only", rec.logged)
	}
}

// Lines logged at V(n) go to the test's log if n is at most the verbosity
// of WithLogVerbosity, and are dropped otherwise; errors always go.
func TestLogVerbosity(t *testing.T) {
	for _, v := range []int{0, 1, 2} {
		rec := &lines{}
		log := newTestLog(rec, newOptions([]Option{WithLogVerbosity(v)}).logVerbosity).logger()
		for n := range 4 {
			log.V(n).Info(fmt.Sprintf("at V(%d)", n))
		}
		log.V(3).Error(errors.New("boom"), "failed")
		if len(rec.logged) != v+2 {
			t.Fatalf("verbosity %d: logged %q, want the lines up to V(%d) and the error", v, rec.logged, v)
		}
		for n := 0; n <= v; n++ {
			if want := fmt.Sprintf(`"msg"="at V(%d)"`, n); !strings.Contains(rec.logged[n], want) {
				t.Fatalf("verbosity %d: line %d is %q, want %s", v, n, rec.logged[n], want)
			}
		}
		if !strings.Contains(rec.logged[v+1], `"error"="boom"`) {
			t.Fatalf("verbosity %d: last line %q, want the error", v, rec.logged[v+1])
		}
	}
	if err := newOptions(nil).check(); err != nil {
		t.Fatalf("no options: %v", err)
	}
	if err := newOptions([]Option{WithLogVerbosity(-1)}).check(); err == nil || !strings.Contains(err.Error(), "WithLogVerbosity(-1)") {
		t.Fatalf("WithLogVerbosity(-1): %v, want an error naming the option", err)
	}
}
