package operatortest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/observe"
	"github.com/steadyctl/steady/manager"
)

// Timings of a run.
const (
	// quiet is how long a run must go without a reconcile ending or the
	// manager writing to count as settled.
	quiet = 300 * time.Millisecond
	// downAtMost bounds FaultDown's wait for the test's write.
	downAtMost = 5 * time.Second
)

// outcome is what one run did and left.
type outcome struct {
	p         *perturbation // nil for the reference
	writes    []*write
	watched   map[string]bool
	state     endState
	raw       map[string]map[string]any
	triggered bool
	failures  []string // each a finding, in words
	lines     []string // the test's log and the manager's
	notes     []string // what the perturbation did
	took      time.Duration
	conflict  *interference
}

// exploration is one Explore call: the test, its wiring and steps, and
// the options.
type exploration struct {
	t         testing.TB
	setup     func(*manager.Manager) error
	steps     func(testing.TB, *Env)
	o         *options
	x         *exploreOptions
	cfg       *rest.Config         // the control plane's, as an admin
	clientset kubernetes.Interface // on cfg, for the runs' namespaces
	cleanHTTP *http.Client         // on cfg, for the other writer and the end states
	prefix    string               // of the runs' namespaces
}

func (e *exploration) cleanClientset() kubernetes.Interface { return e.clientset }

// run runs the test's steps once, under p (nil: unperturbed), in a
// namespace and with managers of its own, and reports what happened.
func (e *exploration) run(p *perturbation) *outcome {
	start := time.Now()
	name := "reference"
	if p != nil {
		name = p.name()
	}
	rt := newRunT(e.t, e.t.Name()+"/"+name)
	out := &outcome{p: p}
	defer func() { out.took = time.Since(start) }()
	r := &runner{e: e, rt: rt, out: out}
	r.run()
	if r.s != nil {
		out.writes = r.s.log()
	}
	rt.finish()
	if r.ns != "" {
		_ = e.clientset.CoreV1().Namespaces().Delete(context.Background(), r.ns, metav1.DeleteOptions{})
	}
	failures, lines := rt.report()
	if len(failures) > 0 {
		out.failures = append([]string{"the test's own checks failed:\n\t" + strings.Join(failures, "\n\t")}, out.failures...)
	}
	out.lines = lines
	return out
}

// runner is the state of one run.
type runner struct {
	e   *exploration
	rt  *runT
	out *outcome
	s   *runState
	a   *activity
	env *Env
	ns  string
	gen int
	cur *running
	log *testLog
}

func (r *runner) fail(format string, args ...any) {
	r.out.failures = append(r.out.failures, fmt.Sprintf(format, args...))
}

func (r *runner) run() {
	e := r.e
	ctx := r.rt.Context()
	ns, err := e.namespace(ctx)
	if err != nil {
		r.fail("creating the run's namespace: %v", err)
		return
	}
	r.ns = ns
	r.s = newRunState(r.out.p, e.cleanHTTP, strings.TrimSuffix(e.cfg.Host, "/"))
	testCfg := rest.CopyConfig(e.cfg)
	testCfg.WrapTransport = r.s.transport(0)
	cs, err := kubernetes.NewForConfig(testCfg)
	if err != nil {
		r.fail("the test's clientset: %v", err)
		return
	}
	r.env = &Env{Namespace: ns, Config: testCfg, Clientset: cs, t: r.rt}
	r.a = newActivity(r.env, e.x.invariants)
	r.log = newTestLog(r.rt, e.o.logVerbosity)
	defer r.log.close()

	if err := r.launch(); err != nil {
		r.fail("the manager did not start: %v", err)
		return
	}
	defer func() { r.stop() }()
	r.env.Manager = r.cur.mgr
	stopClients, err := r.testClients(ctx)
	if err != nil {
		r.fail("the test's clients: %v", err)
		return
	}
	defer stopClients()
	defer r.rt.finish() // the steps' clean-ups run while the manager does, as under New

	stepsDone := make(chan struct{})
	go r.rt.runSteps(func() {
		defer close(stepsDone)
		e.steps(r.rt, r.env)
	})
	if !r.supervise(stepsDone, time.Time{}) {
		return
	}
	if r.rt.Failed() {
		return // the checks failed: the end state is no use
	}
	if !r.settle("after the test's steps") {
		return
	}
	settled, _, err := readEnd(ctx, r.s, ns, e.x.ignored)
	if err != nil {
		r.fail("reading the end state: %v", err)
		return
	}
	r.idempotent(ctx, settled)
	r.out.watched = r.s.kindsWatched()
	r.out.state, r.out.raw, err = readEnd(ctx, r.s, ns, e.x.ignored)
	if err != nil {
		r.fail("reading the end state: %v", err)
	}
	r.s.end()
	r.out.failures = append(r.out.failures, r.a.broke()...)
	r.out.triggered, r.out.notes, r.out.conflict = r.s.outcome()
}

// launch starts the manager of the next generation.
func (r *runner) launch() error {
	e := r.e
	r.gen++
	cfg := rest.CopyConfig(e.cfg)
	cfg.WrapTransport = r.s.transport(r.gen)
	mopts := append([]manager.Option{manager.WithNamespace(r.env.Namespace), manager.WithLogger(r.log.logger())}, e.o.managerOpts...)
	ctx := observe.WithHooks(context.Background(), r.a.hooks(r.gen))
	cur, err := launch(ctx, cfg, mopts, e.setup)
	if cur != nil {
		r.cur = cur
	}
	return err
}

// stop stops the current manager; a crashed one's error is expected.
func (r *runner) stop() {
	if r.cur == nil {
		return
	}
	if err := r.cur.stop(); err != nil && r.gen == r.s.generation() {
		r.fail("the manager stopped with an error: %v", err)
	}
	r.cur = nil
}

// supervise restarts crashed managers until done is closed or deadline
// (if not zero) passes; false means the run cannot go on.
func (r *runner) supervise(done <-chan struct{}, deadline time.Time) bool {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case <-done:
			return true
		case <-timeout:
			return true
		case <-r.s.crashed:
			if !r.restart(done) {
				return false
			}
		}
	}
}

// restart replaces the crashed manager: at once, or for FaultDown once the
// test's write has landed.
func (r *runner) restart(done <-chan struct{}) bool {
	r.stop()
	if p := r.out.p; p != nil && p.fault == FaultDown {
		select {
		case <-r.s.untilLanded:
		case <-done:
		case <-time.After(downAtMost):
			r.s.mu.Lock()
			r.s.note("the test's write %d did not come within %v of the crash; the fresh manager started then", p.until.seq, downAtMost)
			r.s.mu.Unlock()
		}
	}
	if err := r.launch(); err != nil {
		r.fail("the fresh manager did not start after the crash: %v", err)
		return false
	}
	return true
}

// settle waits until the run is quiet: the perturbation over, nothing
// queued, in progress or failing, no write for a while.
func (r *runner) settle(when string) bool {
	deadline := time.Now().Add(r.e.x.settle)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	why := ""
	for time.Now().Before(deadline) {
		select {
		case <-r.s.crashed:
			if !r.restart(nil) {
				return false
			}
			continue
		case <-tick.C:
		}
		idle := false
		switch idle, why = r.a.idle(quiet); {
		case !idle:
		case r.s.busy():
			why = "the perturbation is still under way"
		case r.s.quietFor() < quiet:
			why = "the manager wrote within the last " + quiet.String()
		default:
			return true
		}
	}
	r.fail("did not settle within %v %s: %s; the manager's last writes:\n\t%s", r.e.x.settle, when, why, strings.Join(lastWrites(r.s.log(), 5), "\n\t"))
	return false
}

// idempotent reconciles every request of the run once more and fails the
// run if that writes a change: one that the end state, normalized as for
// the comparison with the unperturbed run (WithIgnoredFields included),
// shows.
func (r *runner) idempotent(ctx context.Context, settled endState) {
	before := r.s.managerWrites()
	ends, queued := r.a.again()
	wait, cancel := context.WithTimeout(ctx, r.e.x.settle)
	r.a.awaitEnds(wait, ends+queued)
	cancel()
	if !r.settle("after every request was reconciled again") {
		return
	}
	var wrote []string
	for _, w := range r.s.log() {
		if !w.byTest {
			// A write the server refused (AlreadyExists, say) changed nothing.
			if before--; before < 0 && w.code > 0 && w.code < 300 {
				wrote = append(wrote, w.describe())
			}
		}
	}
	if len(wrote) == 0 {
		return
	}
	again, _, err := readEnd(ctx, r.s, r.ns, r.e.x.ignored)
	if err != nil {
		r.fail("reading the end state: %v", err)
		return
	}
	if d := diff(settled, again, 20, "once settled", "after reconciling again"); len(d) > 0 {
		r.fail("not idempotent: reconciling every request once more, after the run had settled, wrote:\n\t%s\nand changed:\n\t%s",
			strings.Join(wrote, "\n\t"), strings.Join(d, "\n\t"))
	}
}

// testClients gives the test's steps a cache of their own, through the
// test's transport, that outlives the run's managers.
func (r *runner) testClients(ctx context.Context) (func(), error) {
	c, err := cluster.New(r.env.Config, cluster.WithScheme(r.cur.mgr.Cluster().Scheme()))
	if err != nil {
		return nil, err
	}
	var fopts []informer.FactoryOption
	if ns := r.cur.mgr.Namespaces(); len(ns) > 0 {
		fopts = append(fopts, informer.WithNamespaces(ns...))
	}
	f, err := informer.NewFactory(c, fopts...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Start(ctx)
	}()
	r.env.clients = f
	return func() { cancel(); <-done }, nil
}

// lastWrites describes the last n writes of a log.
func lastWrites(log []*write, n int) []string {
	var out []string
	for i := max(0, len(log)-n); i < len(log); i++ {
		out = append(out, fmt.Sprintf("%d. %s", log[i].seq, log[i].describe()))
	}
	return out
}

// namespace creates the run's namespace.
func (e *exploration) namespace(ctx context.Context) (string, error) {
	ns, err := e.cleanClientset().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: e.prefix}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return ns.Name, nil
}
