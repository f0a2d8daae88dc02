package testkit

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/steadyctl/steady/testenv"
)

// Main is a whole TestMain: testenv.Main. It runs the tests, stops the
// control plane if a test started one, and, if the tests passed, fails the
// run when goroutines leaked. Main does not return.
func Main(m *testing.M) { testenv.Main(m) }

// Env returns the test binary's control plane (testenv.Shared), starting it
// on the first call; Main stops it after the tests. Under go test -short it
// skips the test instead.
func Env(t testing.TB) *testenv.Environment {
	t.Helper()
	return testenv.Shared(t)
}

// OwnEnv starts a control plane for t alone, with opts — a kube-apiserver
// feature gate the shared one has off, say — and stops it when t ends.
// Starting one takes seconds of CPU: give a test binary at most one, and
// run the tests that need it as subtests of one test. Like Env it skips the
// test under go test -short.
func OwnEnv(t testing.TB, opts ...testenv.Option) *testenv.Environment {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a control plane (etcd and kube-apiserver); skipped under -short")
	}
	env, err := testenv.Start(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	return env
}

// Clientset returns a clientset for Env's control plane, shared by the
// tests of the binary; like Env it skips the test under go test -short.
func Clientset(t testing.TB) *kubernetes.Clientset {
	t.Helper()
	return testenv.Shared(t).Clientset
}

// Namespace creates a namespace named prefix plus a random suffix on Env's
// control plane and deletes it when the test ends. Like Env it skips the
// test under go test -short.
func Namespace(t testing.TB, prefix string) string {
	t.Helper()
	return testenv.Shared(t).NewNamespace(t, prefix)
}

// Condition is what Eventually polls: testenv.Condition.
type Condition = testenv.Condition

// Eventually is testenv.Eventually: it polls cond until it holds and fails
// the test with what, and a func() error's last error, after timeout.
func Eventually[C Condition](t testing.TB, timeout time.Duration, what string, cond C) {
	t.Helper()
	testenv.Eventually(t, timeout, what, cond)
}

// Consistently is testenv.Consistently: it checks cond for duration and
// fails the test with what, and a func() error's error, at the first check
// that does not hold.
func Consistently[C Condition](t testing.TB, duration time.Duration, what string, cond C) {
	t.Helper()
	testenv.Consistently(t, duration, what, cond)
}
