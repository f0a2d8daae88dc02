package controller

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/docs/tutorial/03-status/api/v1alpha1"
)

// NewScheme returns the kinds the operator reads and writes: client-go's
// built-in kinds and StaticSite. Pass it to manager.WithScheme, in main
// and in the tests alike.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("adding the built-in kinds to the scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("adding %s to the scheme: %w", v1alpha1.GroupVersion, err)
	}
	return scheme, nil
}
