package controller

import (
	"fmt"
	"maps"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/docs/tutorial/02-children/api/v1alpha1"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestAppliesChildren checks that a StaticSite gets its ConfigMap,
// Deployment and Service, each controlled by it; that a change of its
// pages reaches the ConfigMap and rolls the Deployment; and that the
// controller undoes what others do to its children.
func TestAppliesChildren(t *testing.T) {
	env := start(t)
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1alpha1.StaticSite](env)
	configMaps := operatortest.Client[*corev1.ConfigMap](env)
	deployments := operatortest.Client[*appsv1.Deployment](env)
	services := operatortest.Client[*corev1.Service](env)

	site := newSite(ns, "shop")
	site.Spec.Replicas = ptr.To[int32](2)
	site, err := sites.Create(ctx, site)
	if err != nil {
		t.Fatal(err)
	}
	// controlled fails unless obj exists (err is nil) and the site controls it.
	controlled := func(obj metav1.Object, err error) error {
		if err != nil {
			return err
		}
		if !metav1.IsControlledBy(obj, site) {
			return fmt.Errorf("%s is not controlled by StaticSite %s: %v", obj.GetName(), site.Name, obj.GetOwnerReferences())
		}
		return nil
	}
	var firstHash string
	testenv.Eventually(t, 10*time.Second, "the site's three children", func() error {
		cm, err := configMaps.Live().Get(ctx, ns, "shop-pages")
		if err := controlled(cm, err); err != nil {
			return err
		}
		if !maps.Equal(cm.Data, site.Spec.Pages) {
			return fmt.Errorf("ConfigMap data %v, want the pages %v", cm.Data, site.Spec.Pages)
		}
		d, err := deployments.Live().Get(ctx, ns, "shop")
		if err := controlled(d, err); err != nil {
			return err
		}
		if got := ptr.Deref(d.Spec.Replicas, 0); got != 2 {
			return fmt.Errorf("Deployment replicas %d, want 2", got)
		}
		firstHash = d.Spec.Template.Annotations[pagesHashAnnotation]
		svc, err := services.Live().Get(ctx, ns, "shop")
		if err := controlled(svc, err); err != nil {
			return err
		}
		if !maps.Equal(svc.Spec.Selector, d.Spec.Template.Labels) {
			return fmt.Errorf("Service selector %v does not select the pods %v", svc.Spec.Selector, d.Spec.Template.Labels)
		}
		return nil
	})

	t.Run("a new page reaches the ConfigMap and rolls the web servers", func(t *testing.T) {
		if _, err := sites.Modify(ctx, ns, "shop", func(s *v1alpha1.StaticSite) error {
			s.Spec.Pages["about.html"] = "<p>About the shop</p>"
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 10*time.Second, "the new page in the ConfigMap, a new hash in the pod template", func() error {
			cm, err := configMaps.Live().Get(ctx, ns, "shop-pages")
			if err != nil {
				return err
			}
			if _, ok := cm.Data["about.html"]; !ok {
				return fmt.Errorf("ConfigMap data %v lacks about.html", cm.Data)
			}
			d, err := deployments.Live().Get(ctx, ns, "shop")
			if err != nil {
				return err
			}
			if d.Spec.Template.Annotations[pagesHashAnnotation] == firstHash {
				return fmt.Errorf("the pod template's %s is still %s", pagesHashAnnotation, firstHash)
			}
			return nil
		})
	})

	t.Run("a deleted child comes back", func(t *testing.T) {
		if err := configMaps.Delete(ctx, ns, "shop-pages"); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 10*time.Second, "the ConfigMap back", func() error {
			_, err := configMaps.Live().Get(ctx, ns, "shop-pages")
			return err
		})
	})

	t.Run("a hand-made change is undone", func(t *testing.T) {
		if _, err := deployments.Modify(ctx, ns, "shop", func(d *appsv1.Deployment) error {
			d.Spec.Replicas = ptr.To[int32](5) // a `kubectl scale`
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 10*time.Second, "the Deployment back at 2 replicas", func() error {
			d, err := deployments.Live().Get(ctx, ns, "shop")
			if err == nil && ptr.Deref(d.Spec.Replicas, 0) != 2 {
				err = fmt.Errorf("replicas %d", ptr.Deref(d.Spec.Replicas, 0))
			}
			return err
		})
	})
}
