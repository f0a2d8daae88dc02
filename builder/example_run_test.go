package builder_test

import (
	"context"
	"fmt"
	"log"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/reconcile"
)

// Complete reports a controller's wiring mistakes before anything runs:
// a second primary kind, no primary kind at all, an Unstructured that does
// not say which kind it watches. (An input for the wrong method does not
// compile: For and Owns take Kind, Watches takes Handle.) A builder
// with no mistake would go on to look its kinds up in the API server's
// discovery, which is why this example shows only mistakes.
func ExampleBuilder_Complete() {
	// manager.New does not contact the API server, and none of these
	// builders gets as far as reading a kind, so nothing calls cfg's host.
	cfg := &rest.Config{Host: "https://kubernetes.invalid"}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		log.Fatal(err)
	}
	r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, nil
	})
	for _, b := range []*builder.Builder{
		builder.ControllerManagedBy(mgr).For(builder.Kind(&appsv1.Deployment{})).For(builder.Kind(&appsv1.StatefulSet{})),
		builder.ControllerManagedBy(mgr).Owns(builder.Kind(&corev1.Pod{})),
		builder.ControllerManagedBy(mgr).For(builder.Kind(&unstructured.Unstructured{})),
	} {
		fmt.Println(b.Complete(r))
	}
	// Output:
	// builder: For called twice: a controller has one primary kind (use Watches for more)
	// builder: no primary kind: call For
	// builder: For: *unstructured.Unstructured needs apiVersion and kind set to say what it watches
}
