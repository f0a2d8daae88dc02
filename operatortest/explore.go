package operatortest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/testenv"
)

// Explore runs a test's steps many times, under faults chosen from what
// its controllers did, and fails when a run ends differently from the
// unperturbed one (see the package documentation, "Exploring faults").
//
// setup wires the controllers into a manager, as for New; it is called
// once for every manager Explore starts, so it must make all of the
// controllers' state itself, as main would. steps is the body of an
// ordinary test: it gets a testing.TB and an Env with the run's namespace,
// and its checks (t.Fatal, testenv.Eventually) decide whether the run
// passed, as in a test of New. It reads with Client, whose cache, under
// Explore, is the test's own and outlives the managers that crash;
// Env.Manager is the run's first manager only.
//
// The unperturbed run comes first, in t itself: its failures fail t.
// Then each perturbation is a subtest of t, named by its fault and the
// write it is keyed to, which go test -run replays on its own; the
// message of a failing one gives the command.
func Explore(t *testing.T, setup func(*manager.Manager) error, steps func(testing.TB, *Env), opts ...Option) {
	t.Helper()
	e := newExploration(t, setup, steps, opts)
	ref := e.run(nil)
	if len(ref.failures) > 0 {
		t.Fatalf("operatortest: the unperturbed run failed, before any fault:\n%s", e.report(ref, nil))
	}
	start := time.Now()
	ps := plan(ref.writes, ref.watched, e.x.faults)
	var mu sync.Mutex
	var ran, failed, skipped int
	e.each(ps, func(p *perturbation) {
		t.Run(subtestName(p.name()), func(st *testing.T) {
			out := e.run(p)
			mu.Lock()
			ran++
			mu.Unlock()
			switch findings := e.judge(ref, out); {
			case len(findings) > 0:
				mu.Lock()
				failed++
				mu.Unlock()
				out.failures = findings
				st.Errorf("%s", e.report(out, ref))
			case !out.triggered:
				mu.Lock()
				skipped++
				mu.Unlock()
				st.Skipf("write %q did not happen in this run", p.at.id)
			}
		})
	}, func(left int) {
		t.Logf("operatortest: %d perturbation(s) not run: the budget of %v was spent (WithBudget)", left, e.x.budget)
	})
	t.Logf("operatortest: the unperturbed run made %d write(s) in %v; %d perturbed run(s) in %v: %d failed, %d never reached their write",
		len(slices.DeleteFunc(slices.Clone(ref.writes), func(w *write) bool { return w.late })), ref.took.Round(time.Millisecond), ran, time.Since(start).Round(time.Millisecond), failed, skipped)
}

func newExploration(t testing.TB, setup func(*manager.Manager) error, steps func(testing.TB, *Env), opts []Option) *exploration {
	t.Helper()
	o := newOptions(opts)
	x := o.exploreDefaults()
	if err := o.check(); err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	if err := x.check(); err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	env := testenv.Shared(t)
	if err := installCRDs(env, o); err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	hc, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	return &exploration{t: t, setup: setup, steps: steps, o: o, x: x, cfg: env.Config, clientset: env.Clientset,
		cleanHTTP: hc, prefix: namespacePrefix(t.Name())}
}

// each calls f for every perturbation, x.parallelism at a time, until the
// budget is spent; left is told how many were not started.
func (e *exploration) each(ps []*perturbation, f func(*perturbation), left func(int)) {
	deadline := time.Now().Add(e.x.budget)
	sem := make(chan struct{}, e.x.parallelism)
	var wg sync.WaitGroup
	for i, p := range ps {
		sem <- struct{}{}
		if time.Now().After(deadline) {
			<-sem
			left(len(ps) - i)
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			f(p)
		})
	}
	wg.Wait()
}

// judge lists how a perturbed run went wrong: its own failures, a lost
// change of the other writer, and an end state unlike the reference's.
func (e *exploration) judge(ref, out *outcome) []string {
	findings := append([]string(nil), out.failures...)
	if c := out.conflict; c != nil {
		obj := out.raw[c.target.objectPath()]
		uid, _ := metaString(obj, "uid")
		if obj != nil && uid == c.uid {
			md, _ := obj["metadata"].(map[string]any)
			ann, _ := md["annotations"].(map[string]any)
			if _, ok := ann[otherWriter]; !ok {
				findings = append(findings, fmt.Sprintf("another writer's change was lost: annotation %s, set on %s just before write %d (%s), is gone: that write, or a later one, replaced the object without its resourceVersion",
					otherWriter, c.target.key(), c.before.seq, c.before.describe()))
			}
		}
	}
	if len(out.failures) == 0 && out.state != nil {
		if d := diff(ref.state, out.state, 20, "in the unperturbed run", "here"); len(d) > 0 {
			findings = append(findings, "the end state differs from the unperturbed run's:\n\t"+strings.Join(d, "\n\t"))
		}
	}
	return findings
}

// report is a failed run's message: what was done, what went wrong, how
// to replay it, and the run's writes.
func (e *exploration) report(out, ref *outcome) string {
	var b strings.Builder
	if p := out.p; p != nil {
		fmt.Fprintf(&b, "perturbation %s: %s\n", p.name(), p.describe())
		if !out.triggered {
			fmt.Fprintf(&b, "  (but write %q did not happen in this run, so the fault was not made: the run failed without it)\n", p.at.id)
		}
		for _, n := range out.notes {
			fmt.Fprintf(&b, "  (%s)\n", n)
		}
	}
	for _, f := range out.failures {
		fmt.Fprintf(&b, "%s\n", f)
	}
	fmt.Fprintf(&b, "replay: %s\n", e.replay(out.p))
	if len(out.writes) > 0 {
		fmt.Fprintf(&b, "this run's writes:\n\t%s\n", strings.Join(lastWrites(out.writes, len(out.writes)), "\n\t"))
	}
	if ref != nil {
		fmt.Fprintf(&b, "the unperturbed run's writes:\n\t%s\n", strings.Join(lastWrites(ref.writes, len(ref.writes)), "\n\t"))
	}
	if len(out.lines) > 0 {
		n := min(len(out.lines), 40)
		fmt.Fprintf(&b, "the run's last %d log lines:\n%s", n, strings.Join(out.lines[len(out.lines)-n:], ""))
	}
	return b.String()
}

// replay is the command that runs the unperturbed run and p (nil: the
// unperturbed run alone) again.
func (e *exploration) replay(p *perturbation) string {
	var pat []string
	for _, part := range strings.Split(e.t.Name(), "/") {
		pat = append(pat, "^"+regexp.QuoteMeta(part)+"$")
	}
	if p != nil {
		pat = append(pat, "^"+regexp.QuoteMeta(subtestName(p.name()))+"$")
	} else {
		pat = append(pat, "^$") // no perturbation
	}
	return fmt.Sprintf("go test -run '%s' -count=1 %s", strings.Join(pat, "/"), packageDir())
}

// packageDir names the test's package directory relative to its module's
// root, as go test takes it there, or the directory itself.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}
