package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
)

var (
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	// fooGVR is the stored version, the hub, which the operator reads.
	fooGVR = v1beta1.SchemeGroupVersion.WithResource("foos")
)

// crdName is the CustomResourceDefinition's name: <plural>.<group>.
var crdName = fooGVR.Resource + "." + fooGVR.Group

// fooCRD is Foo's CustomResourceDefinition. It is unstructured so that the
// example needs no apiextensions Go types (nor their module) to install it.
//
// It stores v1beta1. With convertURL, the URL of the operator's
// conversion webhook, it serves v1alpha1 as well, converted by the webhook;
// without, v1alpha1 is listed but not served: the API server alone would
// convert by changing apiVersion, and v1alpha1 clients would see v1beta1's
// fields pruned away. (A version once stored may not leave the list; v1alpha1
// stays listed for clusters where an older Foo CRD stored it.) The caBundle
// is left out: the operator's certificates inject it.
func fooCRD(convertURL string) *unstructured.Unstructured {
	conversion := map[string]any{"strategy": "None"}
	if convertURL != "" {
		conversion = map[string]any{
			"strategy": "Webhook",
			"webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"},
				"clientConfig":             map[string]any{"url": convertURL},
			},
		}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": crdName},
		"spec": map[string]any{
			"group": fooGVR.Group, "scope": "Namespaced",
			"names":      map[string]any{"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
			"versions":   []any{v1beta1Version(), v1alpha1Version(convertURL != "")},
			"conversion": conversion,
		},
	}}
}

// v1beta1Version is the stored version's part of the CRD.
func v1beta1Version() map[string]any {
	deployment := object(map[string]any{
		"name":     map[string]any{"type": "string", "minLength": int64(1)},
		"replicas": integer("int32"),
		"image":    map[string]any{"type": "string"},
	}, "name")
	return version("v1beta1", true, true, object(map[string]any{"deployment": deployment}, "deployment"),
		column("Deployment", "string", ".spec.deployment.name"),
		column("Replicas", "integer", ".spec.deployment.replicas"),
		column("Image", "string", ".spec.deployment.image"))
}

// v1alpha1Version is the deprecated version's part of the CRD. The API
// server itself warns its clients (deprecationWarning).
func v1alpha1Version(served bool) map[string]any {
	v := version("v1alpha1", served, false, object(map[string]any{
		"deploymentName": map[string]any{"type": "string", "minLength": int64(1)},
		"replicas":       integer("int32"),
	}, "deploymentName"),
		column("Deployment", "string", ".spec.deploymentName"),
		column("Replicas", "integer", ".spec.replicas"))
	v["deprecated"] = true
	v["deprecationWarning"] = v1alpha1.SchemeGroupVersion.String() + " Foo is deprecated; use " + v1beta1.SchemeGroupVersion.String()
	return v
}

// version is one version of the CRD, with the status every version shares.
//
// The schema checks types, a minimum of 0 and a non-empty name. The API
// server applies it after the defaulting webhook and before the validating
// one, which checks the rest (admission.go) — and would never see a Foo
// the schema refuses. In an operator of your own, prefer schema rules,
// x-kubernetes-validations (CEL) included, for checks on the object alone:
// they need no server; the validator here shows the webhook.
func version(name string, served, storage bool, spec map[string]any, columns ...map[string]any) map[string]any {
	// []any, not []map[string]any: unstructured content holds JSON's types.
	var printerColumns []any
	for _, c := range append(columns, column("Available", "integer", ".status.availableReplicas"),
		column("Age", "date", ".metadata.creationTimestamp")) {
		printerColumns = append(printerColumns, c)
	}
	status := object(map[string]any{
		"availableReplicas":  integer("int32"),
		"observedGeneration": integer("int64"),
	})
	return map[string]any{
		"name": name, "served": served, "storage": storage,
		// With the status subresource, writes to /status change only
		// status and writes to the object ignore status, and
		// metadata.generation counts spec changes only: what lets
		// predicate.GenerationChanged skip the operator's own status
		// writes.
		"subresources": map[string]any{"status": map[string]any{}},
		"schema": map[string]any{"openAPIV3Schema": object(map[string]any{
			"spec": spec, "status": status,
		})},
		"additionalPrinterColumns": printerColumns,
	}
}

func object(properties map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		o["required"] = req
	}
	return o
}

func integer(format string) map[string]any {
	return map[string]any{"type": "integer", "format": format, "minimum": int64(0)}
}

func column(name, typ, path string) map[string]any {
	return map[string]any{"name": name, "type": typ, "jsonPath": path}
}

// installCRD creates crd, or updates the one already there to it, and
// waits until the API server serves foos in every version crd serves and
// lists them in discovery (where the manager looks kinds up).
func installCRD(ctx context.Context, dyn dynamic.Interface, dc discovery.DiscoveryInterface, crd *unstructured.Unstructured, out io.Writer) error {
	_, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		fmt.Fprintf(out, "CRD %s is already installed: reusing it\n", crdName)
		if err := updateCRD(ctx, dyn, crd); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("installing CRD %s: %w", crdName, err)
	default:
		fmt.Fprintf(out, "installed CRD %s\n", crdName)
	}
	if err := waitServed(ctx, dyn, dc, servedVersions(crd)); err != nil {
		return err
	}
	fmt.Fprintf(out, "CRD %s is established, serving %v\n", crdName, servedVersions(crd))
	return nil
}

// updateCRD gives the installed CRD crd's spec, unless it has it already.
// The certificates may be writing the CRD's caBundle at the same time, so
// a conflict is retried on a fresh read.
func updateCRD(ctx context.Context, dyn dynamic.Interface, crd *unstructured.Unstructured) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		have, err := dyn.Resource(crdGVR).Get(ctx, crdName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		have.Object["spec"] = crd.Object["spec"]
		_, err = dyn.Resource(crdGVR).Update(ctx, have, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("updating CRD %s: %w", crdName, err)
	}
	return nil
}

// servedVersions returns the versions crd serves.
func servedVersions(crd *unstructured.Unstructured) []string {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var served []string
	for _, v := range versions {
		if v, ok := v.(map[string]any); ok && v["served"] == true {
			served = append(served, v["name"].(string))
		}
	}
	return served
}

// waitServed waits until the CRD is established and discovery lists foos
// in each of versions.
func waitServed(ctx context.Context, dyn dynamic.Interface, dc discovery.DiscoveryInterface, versions []string) error {
	return waitFor(ctx, fmt.Sprintf("CRD %s to be established and served as %v", crdName, versions), func(ctx context.Context) (bool, error) {
		crd, err := dyn.Resource(crdGVR).Get(ctx, crdName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !established(crd) {
			return false, nil
		}
		// Established means /apis/samplecontroller.steady.dev/<version>/foos
		// is served; discovery catches up a moment later.
		for _, v := range versions {
			list, err := dc.ServerResourcesForGroupVersion(fooGVR.Group + "/" + v)
			if err != nil || !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == fooGVR.Resource }) {
				return false, nil // not in discovery yet
			}
		}
		return true, nil
	})
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
