//go:build e2e_clientgoscheme

package e2e

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// SchemeTypes names the Go types in the children's scheme: "client-go",
// client-go's scheme of every built-in kind (plus Widget), as kubebuilder's
// main.go fills an operator's.
const SchemeTypes = "client-go"

// addBuiltins adds every built-in kind to s.
func addBuiltins(s *runtime.Scheme, _ Kind) error { return clientgoscheme.AddToScheme(s) }
