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

	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestReconcilerLifecycle runs the Foo controller alone on the CRD, without
// webhooks: a Foo gets its Deployment, controlled by it, and a finalizer,
// with the image the defaulter would have set; the Deployment's status
// reaches the Foo's; a new image reaches the Deployment; deleting the Foo
// deletes the Deployment.
func TestReconcilerLifecycle(t *testing.T) {
	setup, opts := controllerAlone(t)
	reconcilerLifecycle(t, operatortest.New(t, setup, opts...))
}

// controllerAlone returns the wiring of the Foo controller without
// webhooks, which makes a fresh reconciler for every manager, and the
// options that install the CRD and register Foo's scheme.
func controllerAlone(t testing.TB) (func(*manager.Manager) error, []operatortest.Option) {
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	wire := func(mgr *manager.Manager) error {
		_, err := setup(mgr, scheme, io.Discard)
		return err
	}
	return wire, []operatortest.Option{operatortest.WithCRDs(fooCRD("")), operatortest.WithManagerOptions(manager.WithScheme(scheme))}
}

// reconcilerLifecycle is the story of TestReconcilerLifecycle.
func reconcilerLifecycle(t testing.TB, env *operatortest.Env) {
	foos, deployments := operatortest.Client[*v1beta1.Foo](env), operatortest.Client[*appsv1.Deployment](env)

	foo := &v1beta1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace, Name: "shop"},
		Spec: v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{Name: "shop-web", Replicas: ptr.To[int32](2)}}}
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
		case !metav1.IsControlledBy(d, f) || ptr.Deref(d.Spec.Replicas, 0) != 2 || containerImage(d) != defaultImage:
			return fmt.Errorf("deployment controlled by the foo: %t, replicas %d, image %q",
				metav1.IsControlledBy(d, f), ptr.Deref(d.Spec.Replicas, 0), containerImage(d))
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

	if _, err := foos.Modify(t.Context(), env.Namespace, "shop", func(f *v1beta1.Foo) error {
		f.Spec.Deployment.Image = "registry.k8s.io/pause:3.9"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the deployment to run the foo's new image", func() error {
		d, err := deployments.Live().Get(t.Context(), env.Namespace, "shop-web")
		if err != nil {
			return err
		}
		if image := containerImage(d); image != "registry.k8s.io/pause:3.9" || ptr.Deref(d.Spec.Replicas, 0) != 2 {
			return fmt.Errorf("deployment image %q, replicas %d", image, ptr.Deref(d.Spec.Replicas, 0))
		}
		return nil
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
