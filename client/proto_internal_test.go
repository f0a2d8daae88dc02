package client

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// Only typed clients of built-in kinds over protobuf encode and decode
// themselves; JSON configs, unstructured and metadata clients, and Go
// types without protobuf code keep client-go's serializers.
func TestProtoWireOnlyForTypedProtobuf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		contentType string
		make        func(*informer.Factory) (*protoWire, error)
		want        bool
	}{
		{"typed, no content type", "", func(f *informer.Factory) (*protoWire, error) {
			c, err := For[*corev1.ConfigMap](f, "")
			return protoOf(c, err)
		}, true},
		{"typed, protobuf", runtime.ContentTypeProtobuf, func(f *informer.Factory) (*protoWire, error) {
			c, err := For[*corev1.ConfigMap](f, "")
			return protoOf(c, err)
		}, true},
		{"typed, JSON", runtime.ContentTypeJSON, func(f *informer.Factory) (*protoWire, error) {
			c, err := For[*corev1.ConfigMap](f, "")
			return protoOf(c, err)
		}, false},
		{"unstructured", "", func(f *informer.Factory) (*protoWire, error) {
			c, err := ForUnstructured(f, corev1.SchemeGroupVersion.WithKind("ConfigMap"), "")
			return protoOf(c, err)
		}, false},
		{"metadata", "", func(f *informer.Factory) (*protoWire, error) {
			c, err := ForMetadata(f, corev1.SchemeGroupVersion.WithKind("ConfigMap"), "")
			return protoOf(c, err)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rest.CopyConfig(testkit.Env(t).Config)
			cfg.ContentType = tc.contentType
			// protoWire is a fast path: asked for, whatever STEADY_FAST_PATHS says.
			cl, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme), cluster.WithFastPaths(true))
			if err != nil {
				t.Fatal(err)
			}
			f, err := informer.NewFactory(cl)
			if err != nil {
				t.Fatal(err)
			}
			p, err := tc.make(f)
			if err != nil {
				t.Fatal(err)
			}
			if (p != nil) != tc.want {
				t.Fatalf("protoWire %+v, want one: %v", p, tc.want)
			}
			if p != nil && (p.prefix != "/api/v1" || p.kind != "ConfigMap" || p.apiVersion != "v1") {
				t.Fatalf("protoWire %+v", p)
			}
		})
	}
}

// A Go type without protobuf code, or a REST client whose paths are not
// the group version's usual ones, gets no protoWire.
func TestProtoWireNeedsProtobufCodeAndTheAPIPath(t *testing.T) {
	gadget := schema.GroupVersionKind{Group: "client.steady.dev", Version: "v1", Kind: "Gadget"}
	if newProtoWire[*testkit.Gadget](gadget, &rest.RESTClient{}, true) != nil {
		t.Fatal("a Go type without protobuf code gets a protoWire")
	}
	other, err := rest.RESTClientFor(&rest.Config{Host: "https://example.com", APIPath: "/elsewhere",
		ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion, NegotiatedSerializer: clientgoscheme.Codecs}})
	if err != nil {
		t.Fatal(err)
	}
	if newProtoWire[*corev1.ConfigMap](corev1.SchemeGroupVersion.WithKind("ConfigMap"), other, true) != nil {
		t.Fatal("a REST client of another API path gets a protoWire")
	}
	usual, err := rest.RESTClientFor(&rest.Config{Host: "https://example.com/prefix", APIPath: "/api",
		ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion, NegotiatedSerializer: clientgoscheme.Codecs}})
	if err != nil {
		t.Fatal(err)
	}
	if newProtoWire[*corev1.ConfigMap](corev1.SchemeGroupVersion.WithKind("ConfigMap"), usual, true) == nil {
		t.Fatal("a REST client of the usual API path under a host prefix gets no protoWire")
	}
}

func protoOf[T object.Object](c *Client[T], err error) (*protoWire, error) {
	if err != nil {
		return nil, err
	}
	return c.proto, nil
}
