package operatortest

import (
	"testing"

	"github.com/steadyctl/steady/manager"
)

// Prepare and Start are New's two halves, for the benchmark's split.
func Prepare(t testing.TB, opts ...Option) *Env { return prepare(t, newOptions(opts)) }

func (e *Env) Start(setup func(*manager.Manager) error, opts ...Option) {
	e.start(setup, newOptions(opts))
}
