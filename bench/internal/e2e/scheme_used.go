//go:build !e2e_clientgoscheme

package e2e

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SchemeTypes names the Go types in the children's scheme: "used", the
// reconciled kind's group version only.
const SchemeTypes = "used"

// addBuiltins adds the built-in kinds k's controller uses to s: core/v1
// for ConfigMaps, none for Widgets.
func addBuiltins(s *runtime.Scheme, k Kind) error {
	if k == KindConfigMap {
		return corev1.AddToScheme(s)
	}
	return nil
}
