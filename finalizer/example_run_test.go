package finalizer_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/finalizer"
	"github.com/steadyctl/steady/reconcile"
)

// fakeConfigMaps is a client.Interface over a map, with the two calls a
// finalizer.Reconciler makes; embedding the interface makes it one, and
// any other call panics. Like the API server, it removes an object being
// deleted once its last finalizer is gone.
type fakeConfigMaps struct {
	client.Interface[*corev1.ConfigMap]
	objects map[types.NamespacedName]*corev1.ConfigMap
}

func (f *fakeConfigMaps) Get(_ context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	cm, ok := f.objects[types.NamespacedName{Namespace: namespace, Name: name}]
	if !ok {
		return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), name)
	}
	return cm, nil
}

func (f *fakeConfigMaps) Modify(ctx context.Context, namespace, name string, mutate func(*corev1.ConfigMap) error) (*corev1.ConfigMap, error) {
	cm, err := f.Get(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	cm = cm.DeepCopy()
	if err := mutate(cm); err != nil {
		return nil, err
	}
	key := types.NamespacedName{Namespace: namespace, Name: name}
	f.objects[key] = cm
	if cm.DeletionTimestamp != nil && len(cm.Finalizers) == 0 {
		delete(f.objects, key)
	}
	return cm, nil
}

// A finalizer.Reconciler unit-tested with a fake client, through an
// object's whole life: the finalizer is stored before Apply runs; a
// deletion runs Cleanup, whose error keeps the finalizer (and the
// object) for a retry; once Cleanup succeeds the finalizer goes, and with
// it the object.
func ExampleReconciler_Reconcile() {
	key := types.NamespacedName{Namespace: "shop", Name: "www"}
	configMaps := &fakeConfigMaps{objects: map[types.NamespacedName]*corev1.ConfigMap{
		key: {ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "www"}, Data: map[string]string{"address": "10.0.0.7"}},
	}}
	dnsDown := true // the external system fails the first deletion
	r, err := finalizer.New(configMaps, "dns.example.com/record", finalizer.Funcs[*corev1.ConfigMap]{
		Apply: func(_ context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			fmt.Printf("  Apply: record %s -> %s (finalizers %v)\n", cm.Name, cm.Data["address"], cm.Finalizers)
			return reconcile.Result{}, nil
		},
		Cleanup: func(_ context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			if dnsDown {
				dnsDown = false
				return reconcile.Result{}, errors.New("dns unavailable")
			}
			fmt.Printf("  Cleanup: record %s deleted\n", cm.Name)
			return reconcile.Result{}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	reconcileOnce := func(what string) {
		fmt.Println(what)
		_, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key})
		if err != nil {
			fmt.Println("  error:", err)
		}
		if cm, ok := configMaps.objects[key]; ok {
			fmt.Println("  stored finalizers:", cm.Finalizers)
		} else {
			fmt.Println("  object gone")
		}
	}

	reconcileOnce("created:")
	// kubectl delete: the API server only marks an object with finalizers.
	configMaps.objects[key].DeletionTimestamp = &metav1.Time{Time: time.Unix(0, 0)}
	reconcileOnce("deleted:")
	reconcileOnce("retried:")
	reconcileOnce("gone:")
	// Output:
	// created:
	//   Apply: record www -> 10.0.0.7 (finalizers [dns.example.com/record])
	//   stored finalizers: [dns.example.com/record]
	// deleted:
	//   error: finalizer dns.example.com/record: cleanup of shop/www: dns unavailable
	//   stored finalizers: [dns.example.com/record]
	// retried:
	//   Cleanup: record www deleted
	//   object gone
	// gone:
	//   object gone
}

// New checks its arguments, so a mistake shows at start-up, not at the
// first deletion: a finalizer name must be domain-qualified, so that no
// other controller's finalizer has it.
func ExampleNew_invalidName() {
	funcs := finalizer.Funcs[*corev1.ConfigMap]{
		Apply:   func(context.Context, *corev1.ConfigMap) (reconcile.Result, error) { return reconcile.Result{}, nil },
		Cleanup: func(context.Context, *corev1.ConfigMap) (reconcile.Result, error) { return reconcile.Result{}, nil },
	}
	_, err := finalizer.New(&fakeConfigMaps{}, "cleanup", funcs)
	fmt.Println(err)
	// Output:
	// finalizer "cleanup": want a domain-qualified name, such as example.com/cleanup, that no other controller uses
}
