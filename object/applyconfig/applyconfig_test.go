package applyconfig_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/object/applyconfig"
)

func TestControllerReference(t *testing.T) {
	owner := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-1"}}
	ref, err := applyconfig.ControllerReference(owner, "shop", clientgoscheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	if *ref.APIVersion != "apps/v1" || *ref.Kind != "Deployment" || *ref.Name != "web" || *ref.UID != "uid-1" ||
		!*ref.Controller || !*ref.BlockOwnerDeletion {
		t.Fatalf("reference %+v, want a controller reference to Deployment shop/web", ref)
	}
	if _, err := applyconfig.ControllerReference(owner, "other", clientgoscheme.Scheme); err == nil || !strings.Contains(err.Error(), "cross namespaces") {
		t.Fatalf("an owner in another namespace: %v, want the cross-namespace refusal", err)
	}
}
