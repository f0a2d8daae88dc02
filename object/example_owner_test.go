package object_test

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/object"
)

// A Deployment controls the ConfigMap made for it: garbage collection
// deletes the ConfigMap with the Deployment, and builder.Owns sends the
// ConfigMap's events to the Deployment. An object has one controller. The
// scheme, which knows the owner's kind, is the manager's
// (mgr.Cluster().Scheme()) in an operator.
func ExampleSetControllerReference() {
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "6b1f0c"}}
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-settings"}}
	if err := object.SetControllerReference(web, settings, clientgoscheme.Scheme); err != nil {
		fmt.Println(err)
	}
	ref := settings.OwnerReferences[0]
	fmt.Println(ref.APIVersion, ref.Kind, ref.Name, *ref.Controller)

	db := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db", UID: "0d9e2a"}}
	err := object.SetControllerReference(db, settings, clientgoscheme.Scheme)
	var owned *object.AlreadyOwnedError
	if errors.As(err, &owned) {
		fmt.Println("already controlled by", owned.Owner.Kind, owned.Owner.Name)
	}
	// Output:
	// apps/v1 Deployment web true
	// already controlled by Deployment web
}

// A ConfigMap is handed over from one Deployment to another: the first
// lets go, since an object has one controller, and the second takes it.
// Letting go of an object one does not control is an error wrapping
// ErrNotController.
func ExampleRemoveControllerReference() {
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "6b1f0c"}}
	canary := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-canary", UID: "94c2d7"}}
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-settings"}}
	if err := object.SetControllerReference(web, settings, clientgoscheme.Scheme); err != nil {
		fmt.Println(err)
	}

	err := object.RemoveControllerReference(canary, settings, clientgoscheme.Scheme)
	fmt.Println(errors.Is(err, object.ErrNotController))

	if err := object.RemoveControllerReference(web, settings, clientgoscheme.Scheme); err != nil {
		fmt.Println(err)
	}
	fmt.Println(object.HasControllerReference(settings))
	if err := object.SetControllerReference(canary, settings, clientgoscheme.Scheme); err != nil {
		fmt.Println(err)
	}
	fmt.Println("controlled by", settings.OwnerReferences[0].Name)
	// Output:
	// true
	// false
	// controlled by web-canary
}

// A finalizer is added once, and its removal says whether there was one.
func ExampleAddFinalizer() {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-settings"}}
	fmt.Println(object.AddFinalizer(cm, "example.com/cleanup"), object.AddFinalizer(cm, "example.com/cleanup"))
	fmt.Println(object.HasFinalizer(cm, "example.com/cleanup"), cm.Finalizers)
	fmt.Println(object.RemoveFinalizer(cm, "example.com/cleanup"), object.RemoveFinalizer(cm, "example.com/cleanup"))
	// Output:
	// true false
	// true [example.com/cleanup]
	// true false
}
