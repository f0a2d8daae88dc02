package testenv_test

import (
	"fmt"

	"github.com/steadyctl/steady/testenv"
)

// ReadCRDs reads a directory as kubebuilder lays it out; InstallCRDs then
// installs what it read: env.InstallCRDs(ctx, crds...).
func ExampleReadCRDs() {
	crds, err := testenv.ReadCRDs("testdata/crds/bases")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, crd := range crds {
		fmt.Println(crd.GetName())
	}
	// Output:
	// gadgets.testenv.steady.dev
	// gizmos.testenv.steady.dev
}
