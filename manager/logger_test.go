package manager

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
)

// Without WithLogger the manager's logger writes errors and V(0) info
// lines where a person sees them (standard error), and drops V(1);
// WithLogger(logr.Discard()) still turns it off.
func TestDefaultLoggerShowsErrors(t *testing.T) {
	var out bytes.Buffer
	old := logOutput
	logOutput = &out
	t.Cleanup(func() { logOutput = old })

	o, err := newOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	log := o.log.WithValues("controller", "widgets")
	log.Error(errors.New("boom"), "reconcile failed; retrying with backoff", "name", "w1")
	log.Info("starting workers")
	log.V(1).Info("a detail")
	got := out.String()
	for _, want := range []string{`"msg"="reconcile failed; retrying with backoff"`, `"error"="boom"`, `"controller"="widgets"`, `"name"="w1"`, `"msg"="starting workers"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the default logger wrote\n%s\nwithout %s", got, want)
		}
	}
	if strings.Contains(got, "a detail") {
		t.Errorf("V(1) written by default:\n%s", got)
	}

	out.Reset()
	o, err = newOptions([]Option{WithLogger(logr.Discard())})
	if err != nil {
		t.Fatal(err)
	}
	o.log.Error(errors.New("boom"), "hidden")
	if out.Len() != 0 {
		t.Errorf("WithLogger(logr.Discard()) wrote %q", out.String())
	}
}

// counted is a log value that counts how often it is formatted.
type counted struct{ n *int }

func (c counted) MarshalLog() any { *c.n++; return "counted" }

// The default logger formats the values given to WithValues only for the
// lines it writes, and writes them as funcr does: before the line's own,
// after the names.
func TestDefaultLoggerFormatsValuesOnlyForLinesWritten(t *testing.T) {
	var out bytes.Buffer
	old := logOutput
	logOutput = &out
	t.Cleanup(func() { logOutput = old })

	formatted := 0
	log := defaultLogger().WithName("ctrl").WithValues("v", counted{&formatted}).WithName("sub").WithValues("n", 1)
	log.V(1).Info("dropped")
	if formatted != 0 || out.Len() != 0 {
		t.Fatalf("a dropped line formatted its values %d times and wrote %q", formatted, out.String())
	}
	log.Info("written", "k", "x")
	if formatted != 1 {
		t.Fatalf("values formatted %d times for one line, want 1", formatted)
	}
	if got := out.String(); !strings.HasPrefix(got, "ctrl/sub ") || !strings.Contains(got, `"msg"="written" "v"="counted" "n"=1 "k"="x"`) {
		t.Errorf("wrote %q, want the names first, then the message, the kept values and the line's", got)
	}
}
