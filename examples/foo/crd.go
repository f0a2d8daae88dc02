package main

import (
	"context"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
)

var (
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	fooGVR = v1alpha1.SchemeGroupVersion.WithResource("foos")
)

// crdName is the CustomResourceDefinition's name: <plural>.<group>.
var crdName = fooGVR.Resource + "." + fooGVR.Group

// fooCRD is Foo's CustomResourceDefinition. It is unstructured so that the
// example needs no apiextensions Go types (nor their module) to install it.
func fooCRD() *unstructured.Unstructured {
	integer := func(format string) map[string]any {
		return map[string]any{"type": "integer", "format": format, "minimum": int64(0)}
	}
	column := func(name, typ, path string) map[string]any {
		return map[string]any{"name": name, "type": typ, "jsonPath": path}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": crdName},
		"spec": map[string]any{
			"group": fooGVR.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
			"versions": []any{map[string]any{
				"name": fooGVR.Version, "served": true, "storage": true,
				// With the status subresource, writes to /status change only
				// status and writes to the object ignore status, and
				// metadata.generation counts spec changes only: what lets
				// predicate.GenerationChanged skip the operator's own
				// status writes.
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object", "required": []any{"deploymentName"},
							"properties": map[string]any{
								"deploymentName": map[string]any{"type": "string", "minLength": int64(1)},
								"replicas":       integer("int32"),
							},
						},
						"status": map[string]any{
							"type": "object",
							"properties": map[string]any{
								"availableReplicas":  integer("int32"),
								"observedGeneration": integer("int64"),
							},
						},
					},
				}},
				"additionalPrinterColumns": []any{
					column("Deployment", "string", ".spec.deploymentName"),
					column("Replicas", "integer", ".spec.replicas"),
					column("Available", "integer", ".status.availableReplicas"),
					column("Age", "date", ".metadata.creationTimestamp"),
				},
			}},
		},
	}}
}

// installCRD creates Foo's CRD, or reuses the one already there, and waits
// until the API server serves foos and lists them in discovery (where the
// manager looks kinds up).
func installCRD(ctx context.Context, dyn dynamic.Interface, dc discovery.DiscoveryInterface, out io.Writer) error {
	_, err := dyn.Resource(crdGVR).Create(ctx, fooCRD(), metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		fmt.Fprintf(out, "CRD %s is already installed: reusing it\n", crdName)
	case err != nil:
		return fmt.Errorf("installing CRD %s: %w", crdName, err)
	default:
		fmt.Fprintf(out, "installed CRD %s\n", crdName)
	}
	err = waitFor(ctx, "CRD "+crdName+" to be established", func(ctx context.Context) (bool, error) {
		crd, err := dyn.Resource(crdGVR).Get(ctx, crdName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !established(crd) {
			return false, nil
		}
		// Established means /apis/samplecontroller.steady.dev/v1alpha1/foos
		// is served; discovery catches up a moment later.
		list, err := dc.ServerResourcesForGroupVersion(fooGVR.GroupVersion().String())
		if err != nil {
			return false, nil // not in discovery yet
		}
		for _, r := range list.APIResources {
			if r.Name == fooGVR.Resource {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "CRD %s is established\n", crdName)
	return nil
}

// established reports whether crd's Established condition is True.
func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if c, ok := c.(map[string]any); ok && c["type"] == "Established" && c["status"] == "True" {
			return true
		}
	}
	return false
}
