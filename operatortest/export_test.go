package operatortest

import (
	"sync"
	"testing"

	"github.com/steadyctl/steady/manager"
)

// Prepare and Start are New's two halves, for the benchmark's split.
func Prepare(t testing.TB, opts ...Option) *Env { return prepare(t, newOptions(opts)) }

func (e *Env) Start(setup func(*manager.Manager) error, opts ...Option) {
	e.start(setup, newOptions(opts))
}

// Findings explores as Explore does, without subtests, running the
// perturbations whose names match accepts (nil: all), and returns the
// findings of each run that has any, by name: "reference" for the
// unperturbed run, after which nothing else runs.
func Findings(t testing.TB, setup func(*manager.Manager) error, steps func(testing.TB, *Env), match func(string) bool, opts ...Option) map[string][]string {
	e := newExploration(t, setup, steps, opts)
	out := map[string][]string{}
	ref := e.run(nil)
	if len(ref.failures) > 0 {
		out["reference"] = ref.failures
		return out
	}
	var mu sync.Mutex
	var ps []*perturbation
	for _, p := range plan(ref.writes, ref.watched, e.x.faults) {
		if match == nil || match(p.name()) {
			ps = append(ps, p)
		}
	}
	e.each(ps, func(p *perturbation) {
		o := e.run(p)
		if f := e.judge(ref, o); len(f) > 0 {
			mu.Lock()
			out[p.name()] = f
			mu.Unlock()
		}
	}, func(int) {})
	return out
}
