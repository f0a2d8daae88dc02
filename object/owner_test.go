package object_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var scheme = clientgoscheme.Scheme

func meta(ns, name, uid string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}
}

func configMap(ns, name, uid string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: meta(ns, name, uid)}
}

func TestSetControllerReference(t *testing.T) {
	owner := &appsv1.Deployment{ObjectMeta: meta("shop", "web", "uid-1")}
	obj := configMap("shop", "web-config", "")
	for range 2 { // setting it again changes nothing
		if err := object.SetControllerReference(owner, obj, scheme); err != nil {
			t.Fatal(err)
		}
	}
	want := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "uid-1", Controller: new(true), BlockOwnerDeletion: new(true)}
	if refs := obj.OwnerReferences; len(refs) != 1 || !equalRef(refs[0], want) {
		t.Fatalf("owner references %+v, want [%+v]", refs, want)
	}

	// The owner deleted and created again under its name is the same
	// controller, with a new UID.
	owner.UID = "uid-2"
	if err := object.SetControllerReference(owner, obj, scheme); err != nil || obj.OwnerReferences[0].UID != "uid-2" || len(obj.OwnerReferences) != 1 {
		t.Fatalf("controller recreated: %v, references %+v", err, obj.OwnerReferences)
	}

	// A second controller is refused, naming the first; obj is unchanged.
	other := &appsv1.StatefulSet{ObjectMeta: meta("shop", "db", "uid-3")}
	err := object.SetControllerReference(other, obj, scheme)
	var owned *object.AlreadyOwnedError
	if !errors.As(err, &owned) || owned.Owner.Name != "web" || owned.Owner.Kind != "Deployment" || owned.Key != "shop/web-config" {
		t.Fatalf("second controller: %v, want an AlreadyOwnedError naming Deployment web", err)
	}
	for _, part := range []string{"StatefulSet db", "shop/web-config", "Deployment web"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%q does not mention %s", err, part)
		}
	}
	if len(obj.OwnerReferences) != 1 {
		t.Fatalf("a refused controller was added: %+v", obj.OwnerReferences)
	}

	// Any number of plain owners, next to the controller.
	if err := object.SetOwnerReference(other, obj, scheme); err != nil {
		t.Fatal(err)
	}
	if err := object.SetOwnerReference(owner, obj, scheme, object.BlockOwnerDeletion(false)); err != nil {
		t.Fatal(err)
	}
	refs := obj.OwnerReferences
	if len(refs) != 2 || refs[1].Kind != "StatefulSet" || refs[1].Controller != nil || !*refs[0].Controller || *refs[0].BlockOwnerDeletion {
		t.Fatalf("after SetOwnerReference: %+v; want the controller kept (unblocked) and the StatefulSet a plain owner", refs)
	}

	removed, err := object.RemoveOwnerReference(owner, obj, scheme)
	if err != nil || !removed || len(obj.OwnerReferences) != 1 || obj.OwnerReferences[0].Name != "db" {
		t.Fatalf("RemoveOwnerReference: %v %v, left %+v", removed, err, obj.OwnerReferences)
	}
	if removed, err := object.RemoveOwnerReference(owner, obj, scheme); removed || err != nil {
		t.Fatalf("second RemoveOwnerReference: %v %v, want false", removed, err)
	}
}

func TestOwnerReferenceRefusals(t *testing.T) {
	type notInScheme struct{ corev1.ConfigMap }
	for name, tc := range map[string]struct {
		owner, obj object.Object
		scheme     *runtime.Scheme
		want       string
	}{
		"cross-namespace": {configMap("a", "owner", "u"), configMap("b", "obj", ""), scheme,
			`the owner is in namespace "a", the object in "b": owner references cannot cross namespaces`},
		"cluster-scoped object, namespaced owner": {configMap("a", "owner", "u"), &corev1.PersistentVolume{ObjectMeta: meta("", "pv", "")}, scheme,
			"a cluster-scoped object cannot have a namespaced owner"},
		"owner without UID": {configMap("a", "owner", ""), configMap("a", "obj", ""), scheme, "the owner has no name or UID"},
		"not in scheme":     {&notInScheme{*configMap("a", "owner", "u")}, configMap("a", "obj", ""), scheme, "*object_test.notInScheme is not in the scheme"},
		"no scheme":         {configMap("a", "owner", "u"), configMap("a", "obj", ""), nil, "no scheme"},
		"unstructured without kind": {&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"namespace": "a", "name": "owner", "uid": "u"}}},
			configMap("a", "obj", ""), scheme, "*unstructured.Unstructured needs apiVersion and kind set"},
	} {
		for _, set := range []func(owner, obj object.Object, s *runtime.Scheme, opts ...object.OwnerOption) error{object.SetControllerReference, object.SetOwnerReference} {
			err := set(tc.owner, tc.obj, tc.scheme)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), object.Key(tc.obj)) {
				t.Errorf("%s: %v, want an error naming %s and containing %q", name, err, object.Key(tc.obj), tc.want)
			}
			if len(tc.obj.GetOwnerReferences()) != 0 {
				t.Errorf("%s: a refused owner was added", name)
			}
		}
	}
}

// A cluster-scoped owner may own a namespaced object; an unstructured
// owner's kind is its own.
func TestOwnerReferenceClusterScopedAndUnstructured(t *testing.T) {
	obj := configMap("shop", "obj", "")
	ns := &corev1.Namespace{ObjectMeta: meta("", "shop", "ns-uid")}
	if err := object.SetControllerReference(ns, obj, scheme); err != nil {
		t.Fatalf("cluster-scoped owner: %v", err)
	}
	foo := &unstructured.Unstructured{}
	foo.SetAPIVersion("example.com/v1")
	foo.SetKind("Foo")
	foo.SetNamespace("shop")
	foo.SetName("foo")
	foo.SetUID("foo-uid")
	if err := object.SetOwnerReference(foo, obj, nil); err != nil {
		t.Fatalf("unstructured owner without a scheme: %v", err)
	}
	refs := obj.OwnerReferences
	if len(refs) != 2 || refs[0].Kind != "Namespace" || refs[0].APIVersion != "v1" || refs[1].APIVersion != "example.com/v1" || refs[1].Kind != "Foo" {
		t.Fatalf("references %+v", refs)
	}
}

// The API server stores what the helpers set, including a cluster-scoped
// owner of a namespaced object.
func TestOwnerReferencesAcceptedByAPIServer(t *testing.T) {
	ns := testkit.Namespace(t, "object-")
	cs := testkit.Clientset(t)
	ctx := context.Background()
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, configMap(ns, "owner", ""), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	namespace, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	child := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "child"}}
	if err := object.SetControllerReference(owner, child, scheme); err != nil {
		t.Fatal(err)
	}
	if err := object.SetOwnerReference(namespace, child, scheme); err != nil {
		t.Fatal(err)
	}
	stored, err := cs.CoreV1().Secrets(ns).Create(ctx, child, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := metav1.GetControllerOf(stored); c == nil || c.UID != owner.UID || !metav1.IsControlledBy(stored, owner) || len(stored.OwnerReferences) != 2 {
		t.Fatalf("stored references %+v, want the config map as controller and the namespace as owner", stored.OwnerReferences)
	}
}

func equalRef(a, b metav1.OwnerReference) bool {
	deref := func(p *bool) bool { return p != nil && *p }
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		deref(a.Controller) == deref(b.Controller) && deref(a.BlockOwnerDeletion) == deref(b.BlockOwnerDeletion)
}

// webOwners is one Deployment, shop/web, as each kind of owner the helpers
// take: a Go type (its kind from the scheme), unstructured and
// metadata-only (their kind their own). References set through one are
// references to the others.
func webOwners() map[string]object.Object {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetNamespace("shop")
	u.SetName("web")
	u.SetUID("uid-1")
	return map[string]object.Object{
		"typed":        &appsv1.Deployment{ObjectMeta: meta("shop", "web", "uid-1")},
		"unstructured": u,
		"metadata":     &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: meta("shop", "web", "uid-1")},
	}
}

var (
	web = &appsv1.Deployment{ObjectMeta: meta("shop", "web", "uid-1")}
	db  = &appsv1.StatefulSet{ObjectMeta: meta("shop", "db", "uid-3")}
)

// withRefs returns a config map in shop whose owner references are refs.
func withRefs(refs ...metav1.OwnerReference) *corev1.ConfigMap {
	obj := configMap("shop", "web-config", "")
	obj.OwnerReferences = refs
	return obj
}

func controllerRef(apiVersion, kind, name string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "some-uid", Controller: new(true)}
}

func plainRef(apiVersion, kind, name string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "some-uid"}
}

func TestRemoveControllerReference(t *testing.T) {
	for name, owner := range webOwners() {
		obj := configMap("shop", "web-config", "")
		if err := object.SetControllerReference(web, obj, scheme); err != nil {
			t.Fatal(err)
		}
		if err := object.SetOwnerReference(db, obj, scheme); err != nil {
			t.Fatal(err)
		}
		cached := obj.OwnerReferences
		if err := object.RemoveControllerReference(owner, obj, scheme); err != nil {
			t.Fatalf("%s owner: %v", name, err)
		}
		if refs := obj.OwnerReferences; len(refs) != 1 || refs[0].Name != "db" || object.HasControllerReference(obj) {
			t.Fatalf("%s owner: left %+v, want the StatefulSet as a plain owner", name, refs)
		}
		if cached[0].Name != "web" || cached[1].Name != "db" {
			t.Fatalf("%s owner: RemoveControllerReference wrote into the array the original shares: %+v", name, cached)
		}

		// Removed once: the object has no controller now.
		err := object.RemoveControllerReference(owner, obj, scheme)
		if !errors.Is(err, object.ErrNotController) || !errors.Is(err, object.ErrNoController) || len(obj.OwnerReferences) != 1 {
			t.Fatalf("%s owner, removed twice: %v, left %+v; want ErrNoController and the StatefulSet kept", name, err, obj.OwnerReferences)
		}
	}
}

// Owner references name an owner by group, kind and name: the version and
// the UID do not matter.
func TestRemoveControllerReferenceIgnoresVersionAndUID(t *testing.T) {
	obj := withRefs(controllerRef("apps/v1beta1", "Deployment", "web"))
	if err := object.RemoveControllerReference(web, obj, scheme); err != nil || len(obj.OwnerReferences) != 0 {
		t.Fatalf("controller of another version and UID: %v, left %+v", err, obj.OwnerReferences)
	}
}

func TestRemoveControllerReferenceRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		refs         []metav1.OwnerReference
		noController bool   // the error wraps ErrNoController too
		want         string // in the error
	}{
		"no references":     {nil, true, "the object has no controller"},
		"a plain reference": {[]metav1.OwnerReference{plainRef("apps/v1", "Deployment", "web")}, true, "the object has no controller"},
		"another controller": {[]metav1.OwnerReference{controllerRef("apps/v1", "StatefulSet", "db")}, false,
			"the owner is not the object's controller: it is controlled by StatefulSet db (apps/v1)"},
		"another controller and a plain reference": {[]metav1.OwnerReference{plainRef("apps/v1", "Deployment", "web"), controllerRef("apps/v1", "StatefulSet", "db")}, false,
			"it is controlled by StatefulSet db"},
		"a controller of the same kind": {[]metav1.OwnerReference{controllerRef("apps/v1", "Deployment", "web-canary")}, false,
			"it is controlled by Deployment web-canary"},
		"a controller of another group": {[]metav1.OwnerReference{controllerRef("example.com/v1", "Deployment", "web")}, false,
			"it is controlled by Deployment web (example.com/v1)"},
	} {
		obj := withRefs(tc.refs...)
		err := object.RemoveControllerReference(web, obj, scheme)
		if !errors.Is(err, object.ErrNotController) || errors.Is(err, object.ErrNoController) != tc.noController {
			t.Errorf("%s: %v, want ErrNotController (and ErrNoController: %v)", name, err, tc.noController)
			continue
		}
		for _, part := range []string{tc.want, "*v1.Deployment shop/web", "shop/web-config"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: %q does not mention %q", name, err, part)
			}
		}
		if len(obj.OwnerReferences) != len(tc.refs) {
			t.Errorf("%s: references changed to %+v", name, obj.OwnerReferences)
		}
	}
}

// An owner whose kind is unknown is an error, whatever the object holds:
// a broken scheme shows at once, not when an object has a controller.
func TestRemoveControllerReferenceUnknownKind(t *testing.T) {
	type notInScheme struct{ appsv1.Deployment }
	for name, owner := range map[string]object.Object{
		"not in the scheme":         &notInScheme{*web},
		"unstructured without kind": &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web"}}},
	} {
		err := object.RemoveControllerReference(owner, withRefs(), scheme)
		if err == nil || errors.Is(err, object.ErrNotController) || !strings.Contains(err.Error(), "removing") {
			t.Errorf("%s: %v, want an error about the owner's kind", name, err)
		}
	}
	if err := object.RemoveControllerReference(web, withRefs(), nil); err == nil || !strings.Contains(err.Error(), "no scheme") {
		t.Errorf("no scheme: %v", err)
	}
}

func TestHasControllerReference(t *testing.T) {
	for name, tc := range map[string]struct {
		refs []metav1.OwnerReference
		want bool
	}{
		"no references":        {nil, false},
		"a plain reference":    {[]metav1.OwnerReference{plainRef("apps/v1", "Deployment", "web")}, false},
		"controller: false":    {[]metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "n", Controller: new(false)}}, false},
		"a controller":         {[]metav1.OwnerReference{controllerRef("apps/v1", "StatefulSet", "db")}, true},
		"plain and controller": {[]metav1.OwnerReference{plainRef("apps/v1", "Deployment", "web"), controllerRef("apps/v1", "StatefulSet", "db")}, true},
	} {
		if got := object.HasControllerReference(withRefs(tc.refs...)); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

func TestHasOwnerReference(t *testing.T) {
	for name, tc := range map[string]struct {
		refs []metav1.OwnerReference
		want bool
	}{
		"no references":         {nil, false},
		"a plain reference":     {[]metav1.OwnerReference{plainRef("apps/v1", "Deployment", "web")}, true},
		"a controller":          {[]metav1.OwnerReference{controllerRef("apps/v1", "Deployment", "web")}, true},
		"another version":       {[]metav1.OwnerReference{plainRef("apps/v1beta2", "Deployment", "web")}, true},
		"another name":          {[]metav1.OwnerReference{controllerRef("apps/v1", "Deployment", "web-canary")}, false},
		"another group":         {[]metav1.OwnerReference{plainRef("example.com/v1", "Deployment", "web")}, false},
		"another kind":          {[]metav1.OwnerReference{plainRef("apps/v1", "StatefulSet", "web")}, false},
		"among other owners":    {[]metav1.OwnerReference{controllerRef("apps/v1", "StatefulSet", "db"), plainRef("apps/v1", "Deployment", "web")}, true},
		"an invalid apiVersion": {[]metav1.OwnerReference{plainRef("apps/v1/x", "Deployment", "web")}, false},
	} {
		for form, owner := range webOwners() {
			if got, err := object.HasOwnerReference(owner, withRefs(tc.refs...), scheme); err != nil || got != tc.want {
				t.Errorf("%s, %s owner: %v, %v; want %v", name, form, got, err, tc.want)
			}
		}
	}
}

func TestHasOwnerReferenceUnknownKind(t *testing.T) {
	type notInScheme struct{ appsv1.Deployment }
	obj := withRefs(plainRef("apps/v1", "Deployment", "web"))
	for name, tc := range map[string]struct {
		owner  object.Object
		scheme *runtime.Scheme
		want   string
	}{
		"not in the scheme": {&notInScheme{*web}, scheme, "*object_test.notInScheme is not in the scheme"},
		"no scheme":         {web, nil, "no scheme"},
		"metadata without kind": {&metav1.PartialObjectMetadata{ObjectMeta: meta("shop", "web", "uid-1")}, scheme,
			"*v1.PartialObjectMetadata needs apiVersion and kind set"},
	} {
		got, err := object.HasOwnerReference(tc.owner, obj, tc.scheme)
		if got || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "shop/web-config") {
			t.Errorf("%s: %v, %v; want false and an error naming shop/web-config and containing %q", name, got, err, tc.want)
		}
	}
}

// A missing reference is not an error for RemoveOwnerReference, unlike
// controller-runtime's; whatever the owner's form, it finds the reference.
func TestRemoveOwnerReferenceForms(t *testing.T) {
	for form, owner := range webOwners() {
		obj := withRefs(controllerRef("apps/v1", "StatefulSet", "db"), plainRef("apps/v1", "Deployment", "web"))
		if removed, err := object.RemoveOwnerReference(owner, obj, scheme); !removed || err != nil || len(obj.OwnerReferences) != 1 {
			t.Errorf("%s owner: %v, %v, left %+v", form, removed, err, obj.OwnerReferences)
		}
		if removed, err := object.RemoveOwnerReference(owner, withRefs(), scheme); removed || err != nil {
			t.Errorf("%s owner, no references: %v, %v; want false, nil", form, removed, err)
		}
	}
}
