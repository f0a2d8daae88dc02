package cluster_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
)

// notBuiltIn is a typed object of no built-in API group.
type notBuiltIn struct{ unstructured.Unstructured }

func (n *notBuiltIn) DeepCopyObject() runtime.Object { return &notBuiltIn{*n.DeepCopy()} }

// A type missing from the scheme is an error naming the type and the option;
// a built-in kind's error also names the package whose AddToScheme adds it,
// as a cluster (and a manager) knows no Go types unless given them.
func TestKindOfNamesWhatToAddToTheScheme(t *testing.T) {
	c, err := cluster.New(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cluster.KindOf[*appsv1.Deployment](c)
	for _, want := range []string{"*v1.Deployment is not in the scheme", "manager.WithScheme", "the AddToScheme of k8s.io/api/apps/v1", "kubernetes/scheme.AddToScheme"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("KindOf[*appsv1.Deployment] without a scheme: %v; want an error with %q", err, want)
		}
	}
	_, err = cluster.KindOf[*notBuiltIn](c)
	if err == nil || !strings.Contains(err.Error(), "*cluster_test.notBuiltIn is not in the scheme") || strings.Contains(err.Error(), "AddToScheme of") {
		t.Errorf("KindOf[*notBuiltIn]: %v; want an error naming the type and no built-in package", err)
	}

	s := runtime.NewScheme()
	if err := appsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err = cluster.New(&rest.Config{Host: "https://127.0.0.1:1"}, cluster.WithScheme(s))
	if err != nil {
		t.Fatal(err)
	}
	if gvk, err := cluster.KindOf[*appsv1.Deployment](c); err != nil || gvk.String() != "apps/v1, Kind=Deployment" {
		t.Errorf("KindOf[*appsv1.Deployment] with apps/v1 in the scheme: %v, %v", gvk, err)
	}
}
