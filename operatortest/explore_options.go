package operatortest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"
)

// exploreOptions are the options of Explore; New refuses them.
type exploreOptions struct {
	first       string // the first one given, to name in New's error
	invariants  []invariant
	ignored     []string // JSON pointers
	budget      time.Duration
	parallelism int
	settle      time.Duration
	faults      map[Fault]bool // nil: all
}

type invariant struct {
	name  string
	check func(ctx context.Context, env *Env) error
}

// Exploration's defaults.
const (
	// DefaultExploreBudget is how long Explore starts perturbed runs for,
	// unless WithBudget says otherwise.
	DefaultExploreBudget = 3 * time.Minute
	// DefaultSettleTimeout is how long a run may take to settle after the
	// test's steps, unless WithSettleTimeout says otherwise.
	DefaultSettleTimeout = 20 * time.Second
)

func (o *options) exploring(name string) *exploreOptions {
	if o.explore == nil {
		o.explore = &exploreOptions{first: name}
	}
	return o.explore
}

// exploreDefaults fills what the options left unset.
func (o *options) exploreDefaults() *exploreOptions {
	x := o.exploring("")
	if x.budget == 0 {
		x.budget = DefaultExploreBudget
	}
	if x.parallelism == 0 {
		x.parallelism = max(2, 2*runtime.GOMAXPROCS(0))
	}
	if x.settle == 0 {
		x.settle = DefaultSettleTimeout
	}
	return x
}

// checkExplore reports an option of Explore whose value makes no sense.
func (x *exploreOptions) check() error {
	switch {
	case x.budget < 0:
		return fmt.Errorf("WithBudget(%v): the budget must be positive", x.budget)
	case x.parallelism < 0:
		return fmt.Errorf("WithParallelism(%d): must be 1 or more", x.parallelism)
	case x.settle < 0:
		return fmt.Errorf("WithSettleTimeout(%v): must be positive", x.settle)
	}
	for _, p := range x.ignored {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("WithIgnoredFields(%q): a JSON pointer starts with /, as in /status/lastSeen", p)
		}
	}
	for _, inv := range x.invariants {
		if inv.check == nil {
			return fmt.Errorf("WithInvariant(%q): nil check", inv.name)
		}
	}
	return nil
}

// WithInvariant adds a check that must hold after every reconcile of every
// run Explore makes, the unperturbed one included: "never two children
// for one parent", say. It is called on the reconciling worker, right
// after the reconcile returns, with the run's Env; read with Live (or
// env.Clientset), since the test's cache may not show the reconcile's
// writes yet. An error fails the run, naming the invariant and the
// reconcile after which it broke. Explore only.
func WithInvariant(name string, check func(ctx context.Context, env *Env) error) Option {
	return func(o *options) {
		x := o.exploring("WithInvariant")
		x.invariants = append(x.invariants, invariant{name, check})
	}
}

// WithIgnoredFields names fields, as JSON pointers (RFC 6901: "/status/lastSeen",
// "/metadata/annotations/example.com~1revision"), that may differ between
// runs without failing the comparison of end states, in objects of every
// kind. Explore already ignores uids, resourceVersions, generations,
// managedFields, timestamps and generated names. Explore only.
func WithIgnoredFields(pointers ...string) Option {
	return func(o *options) {
		x := o.exploring("WithIgnoredFields")
		x.ignored = append(x.ignored, pointers...)
	}
}

// WithBudget bounds how long Explore starts perturbed runs for (default
// DefaultExploreBudget); runs it had no time for are counted in its
// summary, not failed. Explore only.
func WithBudget(d time.Duration) Option {
	return func(o *options) { o.exploring("WithBudget").budget = d }
}

// WithParallelism sets how many perturbed runs go at once, each in a
// namespace and with a manager of its own on the shared control plane
// (default twice GOMAXPROCS, at least 2: runs mostly wait on the API
// server). A manager that is not restricted to its namespace sees the
// other runs' objects: give it 1. Explore only.
func WithParallelism(n int) Option {
	return func(o *options) { o.exploring("WithParallelism").parallelism = n }
}

// WithSettleTimeout bounds how long a run may take, after the test's steps
// have returned, to settle: no request queued, being reconciled or
// failing, and no write for a moment (default DefaultSettleTimeout). A run
// that does not settle fails. Explore only.
func WithSettleTimeout(d time.Duration) Option {
	return func(o *options) { o.exploring("WithSettleTimeout").settle = d }
}

// WithFaults restricts Explore to perturbations of the classes given
// (default: all). Explore only.
func WithFaults(classes ...Fault) Option {
	return func(o *options) {
		x := o.exploring("WithFaults")
		if x.faults == nil {
			x.faults = map[Fault]bool{}
		}
		for _, c := range classes {
			x.faults[c] = true
		}
	}
}
