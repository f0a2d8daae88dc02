package manager_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// A reconcile in progress at shutdown runs to its end, with the cache still
// serving it, before Start returns.
func TestShutdownFinishesInFlightReconciles(t *testing.T) {
	m, cms := configMapManager(t)
	entered, release, finished := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		close(entered)
		<-release
		_, err := cms.Get(ctx, req.Namespace, req.Name) // the cache outlives the controllers
		finished <- err
		return reconcile.Result{}, nil
	})
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	cancel, done := run(m)
	<-entered
	cancel()
	select {
	case err := <-done:
		t.Fatalf("Start returned (%v) while a reconcile was running", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-finished; err != nil {
		t.Fatalf("the last reconcile could not read the cache: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// configMapManager returns a manager restricted to a fresh namespace that
// holds one ConfigMap, and a client of the manager's ConfigMaps.
func configMapManager(t *testing.T) (*manager.Manager, *client.Client[*corev1.ConfigMap]) {
	t.Helper()
	ns := testkit.Namespace(t, "mgr-")
	testkit.CreateConfigMaps(t, testkit.Clientset(t), ns, 0, 1)
	m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	cms, err := client.For[*corev1.ConfigMap](m.Factory(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return m, cms
}

// Controllers remove their handlers as they stop, before the caches stop:
// the manager's shutdown must not release the informers they leave, which
// other controllers' last reconciles may still read.
func TestShutdownReleasesNoInformer(t *testing.T) {
	m, cms := configMapManager(t)
	inf := cms.Informer()
	reconciled := make(chan struct{})
	var once sync.Once
	r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		once.Do(func() { close(reconciled) })
		return reconcile.Result{}, nil
	})
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	select {
	case <-reconciled:
	case <-time.After(30 * time.Second):
		t.Fatal("no reconcile")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if inf.Released() {
		t.Error("the manager released the ConfigMap informer while shutting down")
	}
}

// A runnable that needs no leader runs on a standby replica too.
type always struct{ started chan struct{} }

func (a always) Start(ctx context.Context) error { close(a.started); <-ctx.Done(); return nil }
func (always) NeedLeaderElection() bool          { return false }

func TestStandbyRunsRunnablesThatNeedNoLeader(t *testing.T) {
	ns := testkit.Namespace(t, "mgr-")
	a, _ := candidate(t, ns, "a")
	start(t, a)
	testkit.Eventually(t, 20*time.Second, "a elected", func() bool { return elected(a) })
	b, _ := candidate(t, ns, "b")
	r := always{started: make(chan struct{})}
	if err := b.Add(r); err != nil {
		t.Fatal(err)
	}
	start(t, b)
	select {
	case <-r.started:
	case <-time.After(20 * time.Second):
		t.Fatal("a runnable that needs no leader did not start on the standby")
	}
	if elected(b) {
		t.Fatal("b elected while a holds the lease")
	}
}

// SignalContext: the first SIGTERM cancels, the second exits at once. The
// test runs itself as a child process to have a process to signal.
func TestSignalContext(t *testing.T) {
	if os.Getenv("STEADY_SIGNAL_CHILD") == "1" {
		ctx := manager.SignalContext(context.Background())
		os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		os.Stdout.WriteString("cancelled\n")
		select {} // a shutdown that hangs: only the second signal ends it
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSignalContext$")
	cmd.Env = append(os.Environ(), "STEADY_SIGNAL_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-lines:
			if got != want {
				t.Fatalf("child said %q, want %q", got, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("child did not say %q", want)
		}
	}
	expect("ready")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	expect("cancelled")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("after a second SIGTERM the child ended with %v, want exit status 1", err)
	}
}
