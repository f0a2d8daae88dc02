package main

import (
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestReconcilerLifecycle runs the Foo controller alone on the CRD: a Foo
// gets its Deployment, controlled by it, and a finalizer; the Deployment's
// status reaches the Foo's; deleting the Foo deletes the Deployment.
func TestReconcilerLifecycle(t *testing.T) {
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	env := operatortest.New(t, func(mgr *manager.Manager) error {
		_, err := setup(mgr, scheme, io.Discard)
		return err
	}, operatortest.WithCRDs(fooCRD()), operatortest.WithManagerOptions(manager.WithScheme(scheme)))
	foos, deployments := operatortest.Client[*v1alpha1.Foo](env), operatortest.Client[*appsv1.Deployment](env)

	foo := &v1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace, Name: "shop"},
		Spec: v1alpha1.FooSpec{DeploymentName: "shop-web", Replicas: ptr.To[int32](2)}}
	if _, err := foos.Create(t.Context(), foo); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the foo's deployment, finalizer and status", func() error {
		d, err := deployments.Live().Get(t.Context(), env.Namespace, "shop-web")
		if err != nil {
			return err
		}
		f, err := foos.Live().Get(t.Context(), env.Namespace, "shop")
		switch {
		case err != nil:
			return err
		case !metav1.IsControlledBy(d, f) || ptr.Deref(d.Spec.Replicas, 0) != 2:
			return fmt.Errorf("deployment controlled by the foo: %t, replicas %d", metav1.IsControlledBy(d, f), ptr.Deref(d.Spec.Replicas, 0))
		case !slices.Contains(f.Finalizers, cleanupFinalizer) || f.Status.ObservedGeneration != 1:
			return fmt.Errorf("foo finalizers %v, status %+v", f.Finalizers, f.Status)
		}
		return nil
	})

	// Play the deployment controller, which testenv does not run.
	if _, err := deployments.ModifyStatus(t.Context(), env.Namespace, "shop-web", func(d *appsv1.Deployment) error {
		d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = 2, 2, 2
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the foo's status to follow its deployment's", func() bool {
		f, err := foos.Live().Get(t.Context(), env.Namespace, "shop")
		return err == nil && f.Status.AvailableReplicas == 2
	})

	if err := foos.Delete(t.Context(), env.Namespace, "shop"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the foo and its deployment gone", func() bool {
		_, errFoo := foos.Live().Get(t.Context(), env.Namespace, "shop")
		_, errDep := deployments.Live().Get(t.Context(), env.Namespace, "shop-web")
		return apierrors.IsNotFound(errFoo) && apierrors.IsNotFound(errDep)
	})
}
