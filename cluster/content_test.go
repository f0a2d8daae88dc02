package cluster_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// gadget is a custom resource's Go type as kubebuilder generates it: JSON
// tags, no protobuf form.
type (
	gadget     = testkit.Gadget
	gadgetList = testkit.GadgetList
)

var gadgetGV = schema.GroupVersion{Group: "cluster.steady.dev", Version: "v1"}

// Typed clients speak protobuf for the built-in kinds when the config asks
// for it or names no content type (as controller-runtime's do), and the
// content type a config names otherwise; custom resources, which have no
// protobuf form, never.
func TestProtobufFor(t *testing.T) {
	apps := schema.GroupVersion{Group: "apps", Version: "v1"}
	for _, tc := range []struct {
		contentType            string
		core, apps, customKind bool
	}{
		{"", true, true, false},
		{runtime.ContentTypeProtobuf, true, true, false},
		{runtime.ContentTypeProtobuf + "; charset=utf-8", true, true, false},
		{runtime.ContentTypeJSON, false, false, false},
		{"not a media type", false, false, false},
	} {
		c, err := cluster.New(&rest.Config{Host: "https://127.0.0.1:1", ContentConfig: rest.ContentConfig{ContentType: tc.contentType}},
			cluster.WithScheme(testkit.GadgetScheme(t, gadgetGV)))
		if err != nil {
			t.Fatal(err)
		}
		for gv, want := range map[schema.GroupVersion]bool{corev1.SchemeGroupVersion: tc.core, apps: tc.apps, gadgetGV: tc.customKind} {
			if got := c.ProtobufFor(gv); got != want {
				t.Errorf("config content type %q: ProtobufFor(%s) = %v, want %v", tc.contentType, gv, got, want)
			}
		}
	}
}

// Kinds a program adds to client-go's scheme, as operators often do for
// their custom resources, are not built in: a config naming no content
// type keeps them on JSON, even if their Go types have a protobuf form.
func TestProtobufForIgnoresKindsAddedToClientGoScheme(t *testing.T) {
	added := schema.GroupVersion{Group: "added.cluster.steady.dev", Version: "v1"}
	metav1.AddToGroupVersion(clientgoscheme.Scheme, added) // types with a protobuf form, such as WatchEvent
	c, err := cluster.New(&rest.Config{Host: "https://127.0.0.1:1"}, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	if c.ProtobufFor(added) {
		t.Errorf("ProtobufFor(%s), added to client-go's scheme by the program, is true", added)
	}
	if !c.ProtobufFor(corev1.SchemeGroupVersion) {
		t.Errorf("ProtobufFor(%s) is false", corev1.SchemeGroupVersion)
	}
}

// A config that asks for protobuf, as operators set for the built-in kinds,
// or names no content type, still writes a custom resource (as JSON, the
// only form the API server serves it in without the CBOR gate), and speaks
// protobuf for the built-in kinds; a config asking for JSON keeps JSON.
func TestRESTClientForContentTypes(t *testing.T) {
	env := testkit.Env(t)
	ctx := context.Background()
	if err := env.InstallCRDs(ctx, testkit.GadgetCRD(gadgetGV.Group)); err != nil {
		t.Fatal(err)
	}
	for _, config := range []struct{ contentType, configMapAnswer string }{
		{runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf},
		{"", runtime.ContentTypeProtobuf},
		{runtime.ContentTypeJSON, runtime.ContentTypeJSON},
	} {
		t.Run("config "+config.contentType, func(t *testing.T) {
			ns := testkit.Namespace(t, "content-")
			cfg := rest.CopyConfig(env.Config)
			cfg.ContentType = config.contentType
			c, err := cluster.New(cfg, cluster.WithScheme(testkit.GadgetScheme(t, gadgetGV)), cluster.WithCBOR(false))
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				gv       schema.GroupVersion
				resource string
				obj      runtime.Object
				answer   string
			}{
				{gadgetGV, "gadgets", &gadget{ObjectMeta: metav1.ObjectMeta{Name: "g"}, Spec: map[string]string{"k": "v"}}, runtime.ContentTypeJSON},
				{corev1.SchemeGroupVersion, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v"}}, config.configMapAnswer},
			} {
				rc, err := c.RESTClientFor(tc.gv)
				if err != nil {
					t.Fatal(err)
				}
				res := rc.Post().Namespace(ns).Resource(tc.resource).Body(tc.obj).Do(ctx)
				if err := res.Error(); err != nil {
					t.Fatalf("creating %s: %v", tc.resource, err)
				}
				var ct string
				res.ContentType(&ct)
				if ct != tc.answer {
					t.Errorf("creating %s: answered in %q, want %q", tc.resource, ct, tc.answer)
				}
			}
			var g gadget
			rc, _ := c.RESTClientFor(gadgetGV)
			if err := rc.Get().Namespace(ns).Resource("gadgets").Name("g").Do(ctx).Into(&g); err != nil || g.Spec["k"] != "v" {
				t.Fatalf("reading the gadget back: %+v, %v", g, err)
			}
			var cm corev1.ConfigMap
			rc, _ = c.RESTClientFor(corev1.SchemeGroupVersion)
			if err := rc.Get().Namespace(ns).Resource("configmaps").Name("c").Do(ctx).Into(&cm); err != nil || cm.Data["k"] != "v" {
				t.Fatalf("reading the ConfigMap back: %+v, %v", cm, err)
			}
		})
	}
}
