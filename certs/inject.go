package certs

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/steadyctl/steady/object"
)

// Kinds of the objects the bundle goes into.
const (
	kindValidating = "ValidatingWebhookConfiguration"
	kindMutating   = "MutatingWebhookConfiguration"
	kindCRD        = "CustomResourceDefinition"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// target is a named object that gets the CA bundle.
type target struct{ kind, name string }

func (t target) String() string { return t.kind + " " + t.name }

// targetStatus is what the last check saw of a target.
type targetStatus struct {
	bundles [][]byte // the caBundle of each webhook in it
	absent  bool     // it does not exist, or cannot carry a bundle
	err     error    // why it does not carry the bundle, naming it
}

// carries reports whether every webhook of the target trusts the CA whose
// DER encoding is raw.
func (s targetStatus) carries(raw []byte) bool {
	if s.absent || s.err != nil {
		return false
	}
	for _, b := range s.bundles {
		if !bundleHas(b, raw) {
			return false
		}
	}
	return true
}

// blocks reports whether a target keeps serving certificates from moving
// to the CA whose DER encoding is raw. A target that does not exist routes
// no calls, so it does not; one that could not be read might.
func (s targetStatus) blocks(raw []byte) bool {
	return !s.absent && !s.carries(raw)
}

// errNoConversionWebhook marks a CRD without a webhook to carry a bundle.
var errNoConversionWebhook = errors.New("spec.conversion.strategy is not Webhook")

// accessor reads and writes one target's bundles, whatever its type.
type accessor struct {
	get    func(context.Context) (metav1.Object, [][]byte, error)
	set    func(obj metav1.Object, bundle []byte)
	update func(context.Context, metav1.Object) error
}

// inject writes bundle, read from the Secret at resourceVersion rv, into
// t unless t carries it already or carries one from a newer Secret.
func (a *Authority) inject(ctx context.Context, t target, bundle []byte, rv string) targetStatus {
	acc := a.accessor(t)
	var err error
	for range 3 {
		obj, bundles, getErr := acc.get(ctx)
		switch {
		case apierrors.IsNotFound(getErr):
			return targetStatus{absent: true, err: fmt.Errorf("certs: %s not found", t)}
		case errors.Is(getErr, errNoConversionWebhook):
			return targetStatus{absent: true, err: fmt.Errorf("certs: %s: %w", t, getErr)}
		case getErr != nil:
			return targetStatus{err: fmt.Errorf("certs: reading %s: %w", t, getErr)}
		}
		if allEqual(bundles, bundle) {
			return targetStatus{bundles: bundles}
		}
		// A bundle from a newer Secret means this replica's view is stale;
		// one from the same Secret was changed since (a manifest applied
		// again, say) and is put back.
		if theirs := obj.GetAnnotations()[AnnotationSecretVersion]; theirs != "" {
			if cmp, cmpErr := resourceversion.CompareResourceVersion(rv, theirs); cmpErr == nil && cmp < 0 {
				a.log.V(1).Info("Not injecting an older CA bundle", "target", t.String(), "ours", rv, "theirs", theirs)
				return targetStatus{bundles: bundles}
			}
		}
		acc.set(obj, bundle)
		ann := obj.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[AnnotationSecretVersion] = rv
		obj.SetAnnotations(ann)
		if err = acc.update(ctx, obj); err == nil {
			a.log.Info("CA bundle injected", "target", t.String(), "secretResourceVersion", rv)
			return targetStatus{bundles: repeat(len(bundles), bundle)}
		}
		if !apierrors.IsConflict(err) {
			break
		}
	}
	return targetStatus{err: fmt.Errorf("certs: updating %s: %w", t, err)}
}

func allEqual(bundles [][]byte, want []byte) bool {
	for _, b := range bundles {
		if !bytes.Equal(b, want) {
			return false
		}
	}
	return true
}

func repeat(n int, b []byte) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func (a *Authority) accessor(t target) accessor {
	switch t.kind {
	case kindValidating:
		return webhookAccessor(t.name, a.api.validating, func(c *admissionv1.ValidatingWebhookConfiguration) []*[]byte {
			out := make([]*[]byte, len(c.Webhooks))
			for i := range c.Webhooks {
				out[i] = &c.Webhooks[i].ClientConfig.CABundle
			}
			return out
		})
	case kindMutating:
		return webhookAccessor(t.name, a.api.mutating, func(c *admissionv1.MutatingWebhookConfiguration) []*[]byte {
			out := make([]*[]byte, len(c.Webhooks))
			for i := range c.Webhooks {
				out[i] = &c.Webhooks[i].ClientConfig.CABundle
			}
			return out
		})
	}
	return a.crdAccessor(t.name)
}

// webhookAccessor reads and writes the caBundle of every webhook of a
// webhook configuration through its resource.
func webhookAccessor[C object.Object](name string, api resource[C], caBundles func(C) []*[]byte) accessor {
	return accessor{
		get: func(ctx context.Context) (metav1.Object, [][]byte, error) {
			c, err := api.get(ctx, name)
			if err != nil {
				return nil, nil, err
			}
			var out [][]byte
			for _, b := range caBundles(c) {
				out = append(out, *b)
			}
			return c, out, nil
		},
		set: func(obj metav1.Object, bundle []byte) {
			for _, b := range caBundles(obj.(C)) {
				*b = bundle
			}
		},
		update: func(ctx context.Context, obj metav1.Object) error {
			_, err := api.update(ctx, obj.(C))
			return err
		},
	}
}

// crdAccessor reads and writes spec.conversion.webhook.clientConfig.caBundle
// of a CRD through the dynamic client, so that apiextensions' Go types are
// not needed.
func (a *Authority) crdAccessor(name string) accessor {
	api := a.dyn.Resource(crdResource)
	path := []string{"spec", "conversion", "webhook", "clientConfig", "caBundle"}
	return accessor{
		get: func(ctx context.Context) (metav1.Object, [][]byte, error) {
			crd, err := api.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, nil, err
			}
			if s, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); s != "Webhook" {
				return nil, nil, errNoConversionWebhook
			}
			enc, _, _ := unstructured.NestedString(crd.Object, path...)
			bundle, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				bundle = nil // not a bundle of ours: replace it
			}
			return crd, [][]byte{bundle}, nil
		},
		set: func(obj metav1.Object, bundle []byte) {
			_ = unstructured.SetNestedField(obj.(*unstructured.Unstructured).Object, base64.StdEncoding.EncodeToString(bundle), path...)
		},
		update: func(ctx context.Context, obj metav1.Object) error {
			_, err := api.Update(ctx, obj.(*unstructured.Unstructured), metav1.UpdateOptions{})
			return err
		},
	}
}
