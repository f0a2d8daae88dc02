// Package testkit is the shorthand steady's own tests use for testenv's
// shared control plane: a TestMain that checks for leaked goroutines, one
// control plane per test binary started only when a test asks for it, a
// fresh namespace per test and a polling wait. The logic lives in package
// testenv, where operators' tests (through package operatortest) use it too.
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
//
// It also holds the fixtures tests of several packages share, one concern
// a file: objects to create (Deployment, CreateConfigMaps), a recorder of
// reconciled or handled keys (Keys), a runner of managers, controllers
// and informers for the length of a test (Run), custom resources (Gadget,
// CRD, InstallCRD, Scheme) and RoundTripFunc for wrapping transports. Only
// tests import it.
package testkit
