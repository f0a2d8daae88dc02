// Package testkit is what steady's own tests share: a TestMain that checks
// for leaked goroutines, one control plane per test binary started only when
// a test asks for it, and a polling wait.
//
// A package's TestMain is
//
//	func TestMain(m *testing.M) { testkit.Main(m) }
//
// and a test that needs etcd and kube-apiserver says so:
//
//	env := testkit.Env(t) // skipped under go test -short
//
// so go test -short runs every other test without a control plane.
package testkit
