package v1alpha1_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/conversion/conversiontest"
	v1 "github.com/steadyctl/steady/docs/tutorial/08-conversion/api/v1"
	"github.com/steadyctl/steady/docs/tutorial/08-conversion/api/v1alpha1"
)

// TestConversionLosesNothing converts random v1alpha1 StaticSites to v1
// and back, as the conversion webhook will, and checks that each comes
// back as it was. It needs no API server.
func TestConversionLosesNothing(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	conversiontest.RoundTrip(t, scheme, v1.GroupVersion.WithKind("StaticSite").GroupKind())
}
