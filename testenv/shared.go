package testenv

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// shared is a test binary's control plane: started by the first test that
// asks for it, stopped by Main after the tests.
type shared struct {
	start func() (*Environment, error)

	once sync.Once
	mu   sync.Mutex // guards env against Main's read after the tests
	env  *Environment
	err  error
}

// binaryEnv is the test binary's shared control plane; Main sets the
// options it starts with.
var (
	binaryEnv  = &shared{start: func() (*Environment, error) { return Start(context.Background(), sharedOpts...) }}
	sharedOpts []Option
)

// get starts the control plane on the first call; every call returns the
// first call's result, failure included, so a control plane that cannot
// start is tried once, not once per test.
func (s *shared) get() (*Environment, error) {
	s.once.Do(func() {
		env, err := s.start()
		if err != nil {
			s.err = fmt.Errorf("testenv: starting the shared control plane: %w", err)
			return
		}
		s.mu.Lock()
		s.env = env
		s.mu.Unlock()
	})
	return s.env, s.err
}

// stop stops the control plane if a test started one.
func (s *shared) stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.env == nil {
		return nil
	}
	if err := s.env.Stop(); err != nil {
		return fmt.Errorf("testenv: stopping the shared control plane: %w", err)
	}
	return nil
}

// must returns the control plane, skipping t under -short and failing it
// when the control plane did not start.
func (s *shared) must(t testing.TB) *Environment {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a control plane (etcd and kube-apiserver); skipped under -short")
	}
	env, err := s.get()
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// Shared returns the test binary's control plane, starting it on the first
// call with the options given to Main; Main stops it after the tests. Every
// test of the binary gets the same one, so give each its own namespace
// (NewNamespace). Under go test -short it skips t instead, so that -short
// runs every test that needs no control plane. If the control plane cannot
// start, every test that asks for it fails with the reason.
func Shared(t testing.TB) *Environment {
	t.Helper()
	return binaryEnv.must(t)
}

// Main is a whole TestMain for a package whose tests call Shared:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// It runs the tests, stops the shared control plane if a test started one
// (opts are the options it starts with), and, if the tests passed, fails the
// run when goroutines are left over — a manager, informer or watch that a
// test started and did not stop. Idle HTTP keep-alive connections of the
// tests' clients are not counted. Main does not return.
func Main(m *testing.M, opts ...Option) {
	sharedOpts = opts
	code := m.Run()
	if err := binaryEnv.stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
			goleak.IgnoreTopFunction("internal/poll.runtime_pollWait")); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// NewNamespace creates a namespace named prefix and a random suffix, for
// t alone, and deletes it when t ends. The deletion is not waited for:
// without a kube-controller-manager nothing empties a deleted namespace, so
// it stays Terminating, refusing new objects, until the environment stops.
func (e *Environment) NewNamespace(t testing.TB, prefix string) string {
	t.Helper()
	ns, err := e.Clientset.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("testenv: creating a namespace %s…: %v", prefix, err)
	}
	t.Cleanup(func() {
		_ = e.Clientset.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}
