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
