// Package testenv runs a real Kubernetes control plane — etcd and
// kube-apiserver as child processes on loopback — for tests and demos.
//
// Controllers go wrong in ways only a real API server shows: watches that
// time out, 410 Gone after compaction, bookmarks, resourceVersion semantics,
// conflicts on update. A fake client reproduces none of that, so steady's own
// tests, and the tests of operators built on steady, run against this package:
//
//	env, err := testenv.Start(ctx)
//	if err != nil { ... }
//	defer env.Stop()
//	client := kubernetes.NewForConfigOrDie(env.Config)
//
// # One control plane per test binary
//
// Starting etcd and kube-apiserver takes seconds, so the tests of a package
// share one, started by the first test that asks and stopped after the
// last; each test works in a namespace of its own:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		env := testenv.Shared(t)            // skipped under go test -short
//		ns := env.NewNamespace(t, "some-") // deleted when the test ends
//		...
//		testenv.Eventually(t, 10*time.Second, "the copy to appear", func() error { ... })
//	}
//
// Main also fails the run when a test leaves goroutines behind.
// InstallCRDs installs CustomResourceDefinitions once per environment,
// however many tests ask, from Go objects or from YAML files (ReadCRDs).
// Package operatortest builds on these to run an operator's controllers in
// a test.
//
// # Binaries
//
// Start looks for etcd and kube-apiserver in the directory named by
// WithBinaryDir, then $STEADY_ASSETS, then $KUBEBUILDER_ASSETS (the variable
// controller-runtime's envtest uses, so an existing envtest setup works as
// is). Without any of them it builds both from the Go module proxy — no
// prebuilt downloads — into os.UserCacheDir()/steady/testenv (or
// $STEADY_CACHE_DIR), once per version: kube-apiserver KubeAPIServerVersion
// and etcd EtcdVersion, from small build modules embedded in this package. A
// file lock makes parallel test binaries wait for a single build; progress
// lines go to stderr. The first build takes several minutes (about 8 for
// kube-apiserver on two cores), so give the first `go test` a generous
// -timeout, or call EnsureBinaries in a setup step.
//
// # Processes and clean-up
//
// Each environment picks free loopback ports (retrying when another process
// takes one first), so any number can run at once, from parallel test
// packages included. kube-apiserver authenticates a generated admin token
// (group system:masters) over TLS with a generated CA; Environment.Config and
// the kubeconfig file at Environment.KubeconfigPath carry both. Stop kills
// both processes and removes the environment's directory. If the test binary
// dies without calling Stop — a panic, a -timeout, a SIGKILL — the kernel
// kills the children through the parent-death signal (Linux), and the next
// Start removes directories whose owning process is gone.
//
// # Fault tools
//
// Client connections go through a loopback TCP proxy, so tests can cut every
// open watch (DropConnections) or slow traffic down (SetLatency).
// RestartAPIServer restarts kube-apiserver on the same etcd data, and Compact
// compacts etcd's history so that watches from older resourceVersions end in
// 410 Gone.
package testenv
