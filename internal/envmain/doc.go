// Package envmain runs a package's tests against one shared testenv
// control plane and checks that they leave no goroutine behind.
package envmain
