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

// A config that asks for protobuf, as operators set for the built-in kinds,
// still writes a custom resource (as JSON, the only form the API server
// serves it in), and keeps protobuf for the built-in kinds.
func TestRESTClientForProtobufConfigAndCustomResources(t *testing.T) {
	env := testkit.Env(t)
	ctx := context.Background()
	if err := env.InstallCRDs(ctx, testkit.GadgetCRD(gadgetGV.Group)); err != nil {
		t.Fatal(err)
	}
	ns := testkit.Namespace(t, "content-")
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	scheme.AddKnownTypeWithName(gadgetGV.WithKind("Gadget"), &gadget{})
	scheme.AddKnownTypeWithName(gadgetGV.WithKind("GadgetList"), &gadgetList{})
	metav1.AddToGroupVersion(scheme, gadgetGV)
	cfg := rest.CopyConfig(env.Config)
	cfg.ContentType = runtime.ContentTypeProtobuf
	c, err := cluster.New(cfg, cluster.WithScheme(scheme))
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
		{corev1.SchemeGroupVersion, "configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, runtime.ContentTypeProtobuf},
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
}
