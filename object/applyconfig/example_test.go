package applyconfig_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/object/applyconfig"
)

// A child written with Server-Side Apply carries its controller reference
// in what it applies.
func ExampleControllerReference() {
	owner := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-1"}}
	ref, err := applyconfig.ControllerReference(owner, "shop", clientgoscheme.Scheme)
	if err != nil {
		fmt.Println(err)
		return
	}
	cm := corev1ac.ConfigMap("web-config", "shop").WithOwnerReferences(ref).WithData(map[string]string{"port": "8080"})
	fmt.Println(*cm.OwnerReferences[0].Kind, *cm.OwnerReferences[0].Name, *cm.OwnerReferences[0].Controller)
	// Output: Deployment web true
}
