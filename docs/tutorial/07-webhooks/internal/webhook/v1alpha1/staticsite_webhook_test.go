package v1alpha1

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/docs/tutorial/07-webhooks/api/v1alpha1"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestWebhooks runs the webhooks as the API server calls them.
func TestWebhooks(t *testing.T) {
	env := start(t)
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1alpha1.StaticSite](env)

	t.Run("a site without a domain gets one under the base domain", func(t *testing.T) {
		site := &v1alpha1.StaticSite{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plain"}}
		stored, err := sites.Create(ctx, site)
		if err != nil {
			t.Fatal(err)
		}
		if want := "plain." + ns + "." + baseDomain; stored.Spec.Domain != want {
			t.Errorf("stored domain %q, want the default %q", stored.Spec.Domain, want)
		}
	})

	t.Run("a site named by generateName gets no default, and the schema refuses it", func(t *testing.T) {
		// The API server generates the name after the mutating webhooks
		// and before validating the schema.
		site := &v1alpha1.StaticSite{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "generated-"}}
		_, err := sites.Create(ctx, site)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.domain") {
			t.Fatalf("creating a site by generateName without a domain: %v, want 422 Invalid naming spec.domain", err)
		}
	})

	t.Run("a domain another site has is refused", func(t *testing.T) {
		first := &v1alpha1.StaticSite{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "first"},
			Spec: v1alpha1.StaticSiteSpec{Domain: "shared.example.com"}}
		if _, err := sites.Create(ctx, first); err != nil {
			t.Fatal(err)
		}
		// The validator reads the manager's cache, as the test's client
		// does: wait until it holds the first site.
		testenv.Eventually(t, 10*time.Second, "the first site in the cache", func() error {
			_, err := sites.Get(ctx, ns, "first")
			return err
		})
		second := first.DeepCopy()
		second.Name, second.ResourceVersion = "second", ""
		_, err := sites.Create(ctx, second)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "already used by StaticSite "+ns+"/first") {
			t.Fatalf("creating a second site for shared.example.com: %v, want 422 Invalid naming the first site", err)
		}
		// The first site's updates are admitted: the validating webhook
		// is configured for creations only.
		if _, err := sites.Modify(ctx, ns, "first", func(s *v1alpha1.StaticSite) error {
			s.Spec.Pages = map[string]string{"index.html": "<h1>First</h1>"}
			return nil
		}); err != nil {
			t.Errorf("updating the first site: %v", err)
		}
	})
}
