package testkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/steadyctl/steady/testenv"
)

// controlPlane is started by the first test that asks for it and stopped
// by Main.
type controlPlane struct {
	start func() (*testenv.Environment, error)

	once sync.Once
	mu   sync.Mutex // guards env against Main's read after the tests
	env  *testenv.Environment
	cs   *kubernetes.Clientset
	err  error
}

// shared is the test binary's control plane.
var shared = &controlPlane{start: func() (*testenv.Environment, error) {
	return testenv.Start(context.Background())
}}

// get starts the control plane on the first call; every call returns the
// first call's result, failure included.
func (p *controlPlane) get() (*testenv.Environment, *kubernetes.Clientset, error) {
	p.once.Do(func() {
		env, err := p.start()
		if err != nil {
			p.err = fmt.Errorf("starting the shared control plane: %w", err)
			return
		}
		p.mu.Lock()
		p.env = env // Main stops it, whatever happens next
		p.mu.Unlock()
		if p.cs, err = kubernetes.NewForConfig(env.Config); err != nil {
			p.err = fmt.Errorf("clientset for the shared control plane: %w", err)
		}
	})
	return p.env, p.cs, p.err
}

// stop stops the control plane if a test started one.
func (p *controlPlane) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.env == nil {
		return nil
	}
	if err := p.env.Stop(); err != nil {
		return fmt.Errorf("stopping the shared control plane: %w", err)
	}
	return nil
}

// must returns the control plane, skipping t under -short and failing it
// when the control plane did not start.
func (p *controlPlane) must(t testing.TB) (*testenv.Environment, *kubernetes.Clientset) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a control plane (etcd and kube-apiserver); skipped under -short")
	}
	env, cs, err := p.get()
	if err != nil {
		t.Fatal(err)
	}
	return env, cs
}

// Main is a whole TestMain: it runs the tests, stops the control plane if a
// test started one, and, if the tests passed, fails the run when goroutines
// leaked. Idle HTTP keep-alive connections of the tests' clients are not
// leaks. Main does not return.
func Main(m *testing.M) {
	code := m.Run()
	if err := shared.stop(); err != nil {
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

// Env returns the test binary's control plane (etcd and kube-apiserver),
// starting it on the first call; Main stops it after the tests. Under
// go test -short it skips the test instead. If the control plane cannot
// start, every test that asks for it fails with the reason.
func Env(t testing.TB) *testenv.Environment {
	t.Helper()
	env, _ := shared.must(t)
	return env
}

// Clientset returns a clientset for Env's control plane, shared by the
// tests of the binary; like Env it skips the test under go test -short.
func Clientset(t testing.TB) *kubernetes.Clientset {
	t.Helper()
	_, cs := shared.must(t)
	return cs
}

// Namespace creates a namespace named prefix plus a random suffix on Env's
// control plane and deletes it when the test ends. Like Env it skips the
// test under go test -short.
func Namespace(t testing.TB, prefix string) string {
	t.Helper()
	cs := Clientset(t)
	ns, err := cs.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a namespace for the test: %v", err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{}) })
	return ns.Name
}

// Condition is what Eventually polls: a func() bool, or a func() error that
// returns nil once the condition holds and otherwise says why not.
type Condition interface {
	func() bool | func() error
}

// Polling intervals of Eventually: the first retry comes quickly, for
// conditions another goroutine is about to make true; later ones back off
// so that conditions which call the API server do not hammer it.
const (
	firstInterval = time.Millisecond
	maxInterval   = 50 * time.Millisecond
)

// Eventually polls cond until it holds and fails the test if it still does
// not after timeout, with "timed out after <timeout> waiting for <what>" and,
// for a func() error, cond's last error. It is for states that another
// goroutine or process brings about, never a substitute for stepping a fake
// clock. Like t.Fatal, call it from the test's goroutine.
func Eventually[C Condition](t testing.TB, timeout time.Duration, what string, cond C) {
	t.Helper()
	var check func() error
	switch c := any(cond).(type) {
	case func() bool:
		check = func() error {
			if c() {
				return nil
			}
			return errNotYet
		}
	case func() error:
		check = c
	}
	deadline := time.Now().Add(timeout)
	interval := firstInterval
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			if err == errNotYet {
				t.Fatalf("timed out after %v waiting for %s", timeout, what)
			}
			t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(interval)
		interval = min(2*interval, maxInterval)
	}
}

// errNotYet is a func() bool condition's false.
var errNotYet = errors.New("condition not met")
