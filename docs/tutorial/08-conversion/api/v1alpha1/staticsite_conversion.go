package v1alpha1

import (
	"fmt"
	"maps"
	"slices"

	"github.com/steadyctl/steady/conversion"
	v1 "github.com/steadyctl/steady/docs/tutorial/08-conversion/api/v1"
)

// ConvertTo converts this StaticSite to the hub version, v1: the pages'
// map becomes a list, in the order of their names.
func (src *StaticSite) ConvertTo(hub conversion.Hub) error {
	dst, ok := hub.(*v1.StaticSite)
	if !ok {
		return fmt.Errorf("converting StaticSite %s/%s: the hub is %T, not a v1 StaticSite", src.Namespace, src.Name, hub)
	}
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = v1.StaticSiteSpec{Domain: src.Spec.Domain, Replicas: src.Spec.Replicas}
	for _, name := range slices.Sorted(maps.Keys(src.Spec.Pages)) {
		dst.Spec.Pages = append(dst.Spec.Pages, v1.Page{Name: name, Content: src.Spec.Pages[name]})
	}
	dst.Status = v1.StaticSiteStatus{Conditions: src.Status.Conditions}
	return nil
}

// ConvertFrom converts the hub version, v1, to this StaticSite: the list
// of pages becomes a map by name (the CRD's schema keeps names unique).
func (dst *StaticSite) ConvertFrom(hub conversion.Hub) error {
	src, ok := hub.(*v1.StaticSite)
	if !ok {
		return fmt.Errorf("converting to StaticSite %s/%s: the hub is %T, not a v1 StaticSite", dst.Namespace, dst.Name, hub)
	}
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = StaticSiteSpec{Domain: src.Spec.Domain, Replicas: src.Spec.Replicas}
	for _, p := range src.Spec.Pages {
		if dst.Spec.Pages == nil {
			dst.Spec.Pages = make(map[string]string, len(src.Spec.Pages))
		}
		dst.Spec.Pages[p.Name] = p.Content
	}
	dst.Status = StaticSiteStatus{Conditions: src.Status.Conditions}
	return nil
}
