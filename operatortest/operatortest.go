package operatortest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/testenv"
)

// Env is one test's operator: a namespace of its own on the test binary's
// shared control plane, and a running manager restricted to it.
type Env struct {
	// Namespace is the test's namespace, created for it and deleted when
	// it ends. The manager's caches hold this namespace only.
	Namespace string
	// Config reaches the control plane as an admin, without client-side
	// throttling.
	Config *rest.Config
	// Clientset is a client-go clientset for Config, for the test's own
	// reads and writes of built-in kinds.
	Clientset *kubernetes.Clientset
	// Manager is the running manager that setup wired the controllers into.
	Manager *manager.Manager

	t       testing.TB
	clients *informer.Factory // what Client reads from under Explore; nil: the manager's
}

// stopTimeout bounds the wait for a manager to stop at the end of a test:
// its own shutdown timeout (default 30 s) plus time to stop its caches.
const stopTimeout = time.Minute

// New runs the controllers that setup wires into a manager, for the test
// t, and returns once they run and their caches hold the namespace's
// current state:
//
//   - the test binary's shared control plane (testenv.Shared) is started
//     on first use, and the CRDs given by WithCRDs and WithCRDFiles are
//     installed on it once;
//   - a fresh namespace, named after the test, is created;
//   - a manager is made with manager.WithNamespace(namespace), a logger
//     that writes to t.Log (at the verbosity of WithLogVerbosity), and the
//     options of WithManagerOptions after those; it serves no HTTP
//     endpoints and runs no leader election unless those options say so;
//   - setup is called with it (nil setup: a manager without controllers),
//     and the manager is started.
//
// When t ends, the manager is stopped and waited for, so that no goroutine
// of it outlives the test, and the namespace is deleted (without waiting).
// Any failure fails t at once, naming the step. Under go test -short New
// skips t, as testenv.Shared does.
func New(t testing.TB, setup func(*manager.Manager) error, opts ...Option) *Env {
	t.Helper()
	o := newOptions(opts)
	e := prepare(t, o)
	e.start(setup, o)
	return e
}

// prepare installs o's CRDs and creates the test's namespace.
func prepare(t testing.TB, o *options) *Env {
	t.Helper()
	env := testenv.Shared(t)
	if err := installCRDs(env, o); err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	return &Env{
		Namespace: env.NewNamespace(t, namespacePrefix(t.Name())),
		Config:    env.Config,
		Clientset: env.Clientset,
		t:         t,
	}
}

func installCRDs(env *testenv.Environment, o *options) error {
	crds := o.crds
	if len(o.crdFiles) > 0 {
		read, err := testenv.ReadCRDs(o.crdFiles...)
		if err != nil {
			return err
		}
		crds = append(crds, read...)
	}
	if len(crds) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), crdTimeout)
	defer cancel()
	return env.InstallCRDs(ctx, crds...)
}

// crdTimeout bounds the wait for CRDs to be served: tens of milliseconds
// normally, but many test binaries may start at once on a small machine.
const crdTimeout = time.Minute

// start makes the manager, calls setup, starts the manager and waits until
// it runs and its caches have synced.
func (e *Env) start(setup func(*manager.Manager) error, o *options) {
	t := e.t
	t.Helper()
	if err := o.check(); err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	if o.explore != nil {
		t.Fatalf("operatortest: %s applies to Explore only", o.explore.first)
	}
	log := newTestLog(t, o.logVerbosity)
	t.Cleanup(log.close) // after the manager has stopped: cleanups run last-in first-out
	mopts := append([]manager.Option{manager.WithNamespace(e.Namespace), manager.WithLogger(log.logger())}, o.managerOpts...)
	r, err := launch(context.Background(), e.Config, mopts, setup)
	if r != nil {
		e.Manager = r.mgr
		t.Cleanup(func() {
			if err := r.stop(); err != nil {
				t.Errorf("operatortest: the manager of namespace %s: %v", e.Namespace, err)
			}
		})
	}
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
}

// running is a started manager.
type running struct {
	mgr      *manager.Manager
	cancel   context.CancelFunc
	stopped  chan struct{}
	err      error // what Start returned, once stopped is closed
	reported bool  // err was returned by launch already
}

// launch makes a manager for cfg with mopts, calls setup with it, starts it
// with ctx's values and waits until it runs and its caches have synced. A
// non-nil running must be stopped, even with an error.
func launch(ctx context.Context, cfg *rest.Config, mopts []manager.Option, setup func(*manager.Manager) error) (*running, error) {
	mgr, err := manager.New(cfg, mopts...)
	if err != nil {
		return nil, err
	}
	if setup != nil {
		if err := setup(mgr); err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &running{mgr: mgr, cancel: cancel, stopped: make(chan struct{})}
	go func() {
		defer close(r.stopped)
		r.err = mgr.Start(ctx)
	}()

	// Elected: the manager has opened its servers, started its caches and
	// launched its controllers (and won the election, if it holds one).
	// Then every informer the controllers use exists, and the wait for
	// their first lists covers them all.
	failed := func() error {
		r.reported = true
		return fmt.Errorf("the manager stopped as it started: %v", r.err)
	}
	select {
	case <-mgr.Elected():
	case <-r.stopped:
		return r, failed()
	}
	f := mgr.Factory()
	syncCtx, cancelSync := context.WithTimeout(ctx, f.CacheSyncTimeout())
	defer cancelSync()
	synced := make(chan error, 1)
	go func() { synced <- f.WaitForCacheSync(syncCtx) }()
	select {
	case err := <-synced:
		if err != nil {
			return r, fmt.Errorf("the manager's caches did not sync: %w", err)
		}
	case <-r.stopped:
		cancelSync()
		<-synced
		return r, failed()
	}
	return r, nil
}

// stop cancels the manager and waits for it, at most stopTimeout, and
// returns what Start returned unless launch has reported it.
func (r *running) stop() error {
	r.cancel()
	select {
	case <-r.stopped:
		if r.reported {
			return nil
		}
		return r.err
	case <-time.After(stopTimeout):
		return fmt.Errorf("the manager did not stop within %v", stopTimeout)
	}
}

// Client returns a steady client of kind T over e's manager: reads come from
// the manager's cache of e's namespace (Live reads the API server), writes
// go to the API server. It fails the test if T is not a kind of the
// manager's scheme.
func Client[T object.Object](e *Env) *client.Client[T] {
	e.t.Helper()
	f := e.clients
	if f == nil {
		f = e.Manager.Factory()
	}
	c, err := client.For[T](f, "")
	if err != nil {
		e.t.Fatalf("operatortest: %v", err)
	}
	return c
}

var notDNS = regexp.MustCompile(`[^a-z0-9]+`)

// namespacePrefix turns a test's name into a namespace's generateName,
// which keeps it recognisable in logs and kubectl: "TestFoo/bar" gives
// "testfoo-bar-".
func namespacePrefix(test string) string {
	p := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(test), "-"), "-")
	if len(p) > 40 { // of 63, leaving room for the random suffix
		p = strings.TrimRight(p[:40], "-")
	}
	if p == "" {
		p = "test"
	}
	return p + "-"
}

// Option configures New.
type Option func(*options)

type options struct {
	managerOpts  []manager.Option
	crds         []*unstructured.Unstructured
	crdFiles     []string
	logVerbosity int
	explore      *exploreOptions // set by the options of Explore only
}

func newOptions(opts []Option) *options {
	o := &options{}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// check reports an option whose value makes no sense.
func (o *options) check() error {
	if o.logVerbosity < 0 {
		return fmt.Errorf("WithLogVerbosity(%d): the verbosity must be 0 or more", o.logVerbosity)
	}
	return nil
}

// WithManagerOptions passes options to manager.New after New's own
// (manager.WithNamespace of the test's namespace and a logger that writes
// to t.Log), so they can override those: manager.WithScheme for custom
// resources, manager.WithLogger(logr.Discard()) for quiet benchmarks.
func WithManagerOptions(opts ...manager.Option) Option {
	return func(o *options) { o.managerOpts = append(o.managerOpts, opts...) }
}

// WithLogVerbosity sets the verbosity of the manager's test log: a line
// logged at V(n) is written to t.Log if n <= v and dropped otherwise;
// errors are always written. The default, 0, writes the lines logged
// without V; WithLogVerbosity(1) or more shows the controllers' detail when
// debugging a test. A negative v fails the test. A logger passed with
// WithManagerOptions(manager.WithLogger(...)) replaces the test log, and
// this option with it.
func WithLogVerbosity(v int) Option {
	return func(o *options) { o.logVerbosity = v }
}

// WithCRDs installs CustomResourceDefinitions on the control plane before
// the manager starts, once per control plane (see
// testenv.Environment.InstallCRDs), and waits until they are served.
func WithCRDs(crds ...*unstructured.Unstructured) Option {
	return func(o *options) { o.crds = append(o.crds, crds...) }
}

// WithCRDFiles installs the CustomResourceDefinitions in YAML or JSON files
// and directories of them (such as kubebuilder's config/crd/bases; see
// testenv.ReadCRDs), as WithCRDs does.
func WithCRDFiles(paths ...string) Option {
	return func(o *options) { o.crdFiles = append(o.crdFiles, paths...) }
}
