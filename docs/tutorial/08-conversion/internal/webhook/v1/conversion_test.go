package v1

import (
	"maps"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/steadyctl/steady/docs/tutorial/08-conversion/api/v1"
	"github.com/steadyctl/steady/docs/tutorial/08-conversion/api/v1alpha1"
	"github.com/steadyctl/steady/operatortest"
)

// TestConversion writes a site as v1alpha1 and reads it as v1, then the
// other way round, through the API server, which calls the conversion
// webhook for every object in a version other than the one stored (v1).
func TestConversion(t *testing.T) {
	env := start(t)
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1.StaticSite](env)
	oldSites := operatortest.Client[*v1alpha1.StaticSite](env)

	// A v1alpha1 client, written before v1 existed, and without a domain:
	// the defaulter, registered for v1, gets the site converted to v1.
	legacy := &v1alpha1.StaticSite{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "legacy"},
		Spec: v1alpha1.StaticSiteSpec{Pages: map[string]string{
			"index.html": "<h1>Legacy</h1>",
			"about.html": "<p>Since 2019</p>",
		}},
	}
	if _, err := oldSites.Create(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	stored, err := sites.Live().Get(ctx, ns, "legacy")
	if err != nil {
		t.Fatal(err)
	}
	wantPages := []v1.Page{{Name: "about.html", Content: "<p>Since 2019</p>"}, {Name: "index.html", Content: "<h1>Legacy</h1>"}}
	if !slices.Equal(stored.Spec.Pages, wantPages) {
		t.Errorf("read as v1, the pages are %+v, want %+v", stored.Spec.Pages, wantPages)
	}
	if want := "legacy." + ns + "." + baseDomain; stored.Spec.Domain != want {
		t.Errorf("read as v1, the domain is %q, want the default %q", stored.Spec.Domain, want)
	}

	// A v1 client adds a page; the v1alpha1 client sees it in its map.
	if _, err := sites.Modify(ctx, ns, "legacy", func(s *v1.StaticSite) error {
		s.Spec.Pages = append(s.Spec.Pages, v1.Page{Name: "contact.html", Content: "<p>Write to us</p>"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	old, err := oldSites.Live().Get(ctx, ns, "legacy")
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(old.Spec.Pages)); !slices.Equal(got, []string{"about.html", "contact.html", "index.html"}) {
		t.Errorf("read as v1alpha1, the pages are %v", got)
	}
}
