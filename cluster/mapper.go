package cluster

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// discoveryTimeout bounds each discovery request, so that a mapping never
// waits on a hung API server for longer.
const discoveryTimeout = time.Minute

// mapper is the cluster's REST mapper. It reads the API server's discovery
// one group version at a time (GET /api/v1, /apis/<group>/<version>) when
// a kind of that group version is first mapped, and the group's preferred
// version (GET /apis/<group>) only when no version is given. An operator
// maps a handful of kinds, so it reads a few small documents instead of
// the whole discovery of every group. Lookups by resource name, which may
// leave out the group or version, read every group version once and answer
// from all of them.
//
// Answers are cached until Reset, 404s included (a group version the
// server does not serve); other errors are not.
type mapper struct {
	rc rest.Interface // unversioned: absolute paths

	mu     sync.Mutex
	gen    uint64 // counts Resets, so a read started before one is not stored
	lists  map[schema.GroupVersion][]metav1.APIResource
	groups map[string][]string // versions of a group, preferred first
	all    *ranked             // every group version; nil until needed
}

var _ meta.ResettableRESTMapper = (*mapper)(nil)

// discoveryScheme decodes discovery's documents and the API's errors.
var discoveryScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

// newMapper returns a mapper that reads discovery through cfg.
func newMapper(cfg *rest.Config, hc *http.Client) (*mapper, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = nil
	cfg.APIPath = ""
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(discoveryScheme).WithoutConversion()
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.UnversionedRESTClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	return &mapper{rc: rc}, nil
}

// Reset forgets everything read, so that the next mapping reads discovery
// again: for kinds installed since.
func (m *mapper) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	m.lists, m.groups, m.all = nil, nil, nil
}

// get reads the discovery document at path into into. A 404 is reported
// as found false.
func (m *mapper) get(path string, into runtime.Object) (found bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), discoveryTimeout)
	defer cancel()
	err = m.rc.Get().AbsPath(path).Do(ctx).Into(into)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("discovery: GET %s: %w", path, err)
	}
	return true, nil
}

// store runs set under the lock unless a Reset came after gen.
func (m *mapper) store(gen uint64, set func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen == gen {
		set()
	}
}

// resources returns the resources of gv, reading them on first use; none
// if the server does not serve gv.
func (m *mapper) resources(gv schema.GroupVersion) ([]metav1.APIResource, error) {
	m.mu.Lock()
	list, ok := m.lists[gv]
	gen := m.gen
	m.mu.Unlock()
	if ok {
		return list, nil
	}
	path := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	var doc metav1.APIResourceList
	found, err := m.get(path, &doc)
	if err != nil {
		return nil, err
	}
	if found {
		list = doc.APIResources
	}
	m.store(gen, func() {
		if m.lists == nil {
			m.lists = make(map[schema.GroupVersion][]metav1.APIResource)
		}
		m.lists[gv] = list
	})
	return list, nil
}

// versions returns the versions the server serves of group, preferred
// first, reading them on first use.
func (m *mapper) versions(group string) ([]string, error) {
	m.mu.Lock()
	vs, ok := m.groups[group]
	gen := m.gen
	m.mu.Unlock()
	if ok {
		return vs, nil
	}
	if group == "" {
		var doc metav1.APIVersions
		found, err := m.get("/api", &doc)
		if err != nil {
			return nil, err
		}
		if found {
			vs = doc.Versions
		}
	} else {
		var doc metav1.APIGroup
		found, err := m.get("/apis/"+group, &doc)
		if err != nil {
			return nil, err
		}
		if found {
			vs = groupVersions(doc)
		}
	}
	m.store(gen, func() {
		if m.groups == nil {
			m.groups = make(map[string][]string)
		}
		m.groups[group] = vs
	})
	return vs, nil
}

// groupVersions returns g's versions, preferred first.
func groupVersions(g metav1.APIGroup) []string {
	vs := []string{g.PreferredVersion.Version}
	for _, v := range g.Versions {
		if v.Version != g.PreferredVersion.Version {
			vs = append(vs, v.Version)
		}
	}
	return vs
}

// RESTMapping returns the resource of gk in the first of versions that has
// it (the group's versions, preferred first, if none are given).
func (m *mapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	ms, err := m.mappings(gk, versions, true)
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// RESTMappings returns the resources of gk in each of versions that has it
// (all the group's versions, preferred first, if none are given).
func (m *mapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return m.mappings(gk, versions, false)
}

// mappings returns gk's mappings in versions (the group's if none), only
// the first if first. No mapping is a NoKindMatchError.
func (m *mapper) mappings(gk schema.GroupKind, versions []string, first bool) ([]*meta.RESTMapping, error) {
	if len(versions) == 0 {
		vs, err := m.versions(gk.Group)
		if err != nil {
			return nil, err
		}
		versions = vs
	}
	var ms []*meta.RESTMapping
	for _, v := range versions {
		gv := schema.GroupVersion{Group: gk.Group, Version: v}
		list, err := m.resources(gv)
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			if r.Kind != gk.Kind || strings.Contains(r.Name, "/") {
				continue // another kind, or a subresource
			}
			ms = append(ms, &meta.RESTMapping{Resource: gv.WithResource(r.Name), GroupVersionKind: gv.WithKind(gk.Kind), Scope: scope(r)})
			if first {
				return ms, nil
			}
			break
		}
	}
	if len(ms) == 0 {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return ms, nil
}

// scope returns r's REST scope.
func scope(r metav1.APIResource) meta.RESTScope {
	if r.Namespaced {
		return meta.RESTScopeNamespace
	}
	return meta.RESTScopeRoot
}

// KindFor returns the kind of resource, which may leave out its group or
// version; it reads every group version once.
func (m *mapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return fromAll(m, func(all *ranked) (schema.GroupVersionKind, error) { return all.KindFor(resource) })
}

// KindsFor returns every kind resource may name, in priority order.
func (m *mapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return fromAll(m, func(all *ranked) ([]schema.GroupVersionKind, error) { return all.KindsFor(resource) })
}

// ResourceFor returns the fully qualified resource input names.
func (m *mapper) ResourceFor(input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return fromAll(m, func(all *ranked) (schema.GroupVersionResource, error) { return all.ResourceFor(input) })
}

// ResourcesFor returns every resource input may name, in priority order.
func (m *mapper) ResourcesFor(input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return fromAll(m, func(all *ranked) ([]schema.GroupVersionResource, error) { return all.ResourcesFor(input) })
}

// ResourceSingularizer returns the singular name of the plural resource.
func (m *mapper) ResourceSingularizer(resource string) (string, error) {
	return fromAll(m, func(all *ranked) (string, error) { return all.ResourceSingularizer(resource) })
}

// fromAll answers a lookup by resource name from every group version.
func fromAll[R any](m *mapper, lookup func(*ranked) (R, error)) (R, error) {
	all, err := m.everything()
	if err != nil {
		var zero R
		return zero, err
	}
	return lookup(all)
}

// everything returns a mapper of every group version the server serves,
// reading discovery's group list and each group version on first use. The
// groups' order is the server's (the built-in groups first), each group's
// preferred version before its others, which is how ambiguous partial
// names are resolved.
func (m *mapper) everything() (*ranked, error) {
	m.mu.Lock()
	all, gen := m.all, m.gen
	m.mu.Unlock()
	if all != nil {
		return all, nil
	}
	var groups metav1.APIGroupList
	if _, err := m.get("/apis", &groups); err != nil {
		return nil, err
	}
	core, err := m.versions("")
	if err != nil {
		return nil, err
	}
	ordered := []metav1.APIGroup{{Versions: versionsFor(core), PreferredVersion: metav1.GroupVersionForDiscovery{Version: first(core)}}}
	ordered = append(ordered, groups.Groups...)

	var preferred, others []schema.GroupVersion
	for _, g := range ordered {
		for i, v := range groupVersions(g) {
			if v == "" {
				continue
			}
			gv := schema.GroupVersion{Group: g.Name, Version: v}
			if i == 0 {
				preferred = append(preferred, gv)
			} else {
				others = append(others, gv)
			}
		}
	}
	order := slices.Concat(preferred, others)
	dm := meta.NewDefaultRESTMapper(preferred)
	for _, gv := range order {
		list, err := m.resources(gv)
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			if strings.Contains(r.Name, "/") {
				continue
			}
			singular := r.SingularName
			if singular == "" {
				singular = strings.ToLower(r.Kind)
			}
			dm.AddSpecific(gv.WithKind(r.Kind), gv.WithResource(r.Name), gv.WithResource(singular), scope(r))
		}
	}
	r := &ranked{PriorityRESTMapper: meta.PriorityRESTMapper{Delegate: dm}, rank: make(map[schema.GroupVersion]int, len(order))}
	for i, gv := range order {
		r.ResourcePriority = append(r.ResourcePriority, gv.WithResource(meta.AnyResource))
		r.KindPriority = append(r.KindPriority, gv.WithKind(meta.AnyKind))
		r.rank[gv] = i
	}
	m.store(gen, func() { m.all = r })
	return r, nil
}

// ranked is a mapper of every group version whose lists come in priority
// order, which meta.PriorityRESTMapper leaves to its delegate.
type ranked struct {
	meta.PriorityRESTMapper
	rank map[schema.GroupVersion]int // position in the priority order
}

// KindsFor returns the kinds resource may name, in priority order.
func (r *ranked) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	kinds, err := r.PriorityRESTMapper.KindsFor(resource)
	slices.SortStableFunc(kinds, func(a, b schema.GroupVersionKind) int { return r.rank[a.GroupVersion()] - r.rank[b.GroupVersion()] })
	return kinds, err
}

// ResourcesFor returns the resources input may name, in priority order.
func (r *ranked) ResourcesFor(input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	res, err := r.PriorityRESTMapper.ResourcesFor(input)
	slices.SortStableFunc(res, func(a, b schema.GroupVersionResource) int { return r.rank[a.GroupVersion()] - r.rank[b.GroupVersion()] })
	return res, err
}

// versionsFor returns vs as discovery's version entries.
func versionsFor(vs []string) []metav1.GroupVersionForDiscovery {
	out := make([]metav1.GroupVersionForDiscovery, len(vs))
	for i, v := range vs {
		out[i] = metav1.GroupVersionForDiscovery{Version: v}
	}
	return out
}

// first returns vs's first element, or "".
func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
