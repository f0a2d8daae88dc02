package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/admission"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
)

func foo(name string, replicas *int32, image string) *v1beta1.Foo {
	return &v1beta1.Foo{ObjectMeta: metav1.ObjectMeta{Name: "f", Namespace: "ns"},
		Spec: v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{Name: name, Replicas: replicas, Image: image}}}
}

// TestDefault checks that the defaulter fills in what the reconciler
// assumes anyway, keeps what is set, and changes nothing the second time.
func TestDefault(t *testing.T) {
	for _, c := range []struct {
		in, want *v1beta1.Foo
	}{
		{foo("web", nil, ""), foo("web", ptr.To(defaultReplicas), defaultImage)},
		{foo("web", ptr.To[int32](0), "nginx:1.29"), foo("web", ptr.To[int32](0), "nginx:1.29")},
	} {
		got := c.in.DeepCopy()
		for range 2 {
			if err := (fooDefaulter{}).Default(t.Context(), got); err != nil {
				t.Fatal(err)
			}
			if replicasOf(got) != replicasOf(c.in) || imageOf(got) != imageOf(c.in) {
				t.Errorf("defaulting %+v changed what the reconciler does: replicas %d, image %s", c.in.Spec, replicasOf(got), imageOf(got))
			}
			if !equalSpec(got, c.want) {
				t.Errorf("defaulted %+v to %+v, want %+v", c.in.Spec.Deployment, got.Spec.Deployment, c.want.Spec.Deployment)
			}
		}
	}
}

func equalSpec(a, b *v1beta1.Foo) bool {
	x, y := a.Spec.Deployment, b.Spec.Deployment
	return x.Name == y.Name && x.Image == y.Image && ptr.Equal(x.Replicas, y.Replicas)
}

// TestDefaulterPatch serves the defaulter as the API server calls it, and
// checks that the patch it answers adds the two defaults and nothing else.
func TestDefaulterPatch(t *testing.T) {
	obj, err := json.Marshal(foo("web", nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	review, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "1", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: obj},
			Kind: metav1.GroupVersionKind{Group: v1beta1.GroupName, Version: "v1beta1", Kind: "Foo"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, mutatePath, bytes.NewReader(review))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	admission.NewDefaulter(fooDefaulter{}).ServeHTTP(rec, req)
	var resp admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Response == nil {
		t.Fatalf("answer %d %s: %v", rec.Code, rec.Body, err)
	}
	var patch []struct {
		Op, Path string
		Value    any
	}
	if err := json.Unmarshal(resp.Response.Patch, &patch); err != nil {
		t.Fatalf("patch %s: %v", resp.Response.Patch, err)
	}
	var ops []string
	for _, p := range patch {
		ops = append(ops, p.Op+" "+p.Path)
	}
	slices.Sort(ops)
	if want := []string{"add /spec/deployment/image", "add /spec/deployment/replicas"}; !resp.Response.Allowed || !slices.Equal(ops, want) {
		t.Errorf("allowed %t, patch %s; want %v", resp.Response.Allowed, resp.Response.Patch, want)
	}
}

// TestValidate checks the validator's rules: what it refuses, with which
// fields, and what it only warns about.
func TestValidate(t *testing.T) {
	v := fooValidator{}
	create := func(f *v1beta1.Foo) func(context.Context) (admission.Warnings, error) {
		return func(ctx context.Context) (admission.Warnings, error) { return v.ValidateCreate(ctx, f) }
	}
	update := func(old, f *v1beta1.Foo) func(context.Context) (admission.Warnings, error) {
		return func(ctx context.Context) (admission.Warnings, error) { return v.ValidateUpdate(ctx, old, f) }
	}
	invalid := foo("Web_Server", ptr.To[int32](11), "")
	for _, c := range []struct {
		what     string
		call     func(context.Context) (admission.Warnings, error)
		fields   []string // of the refusal's causes; nil: admitted
		warnings int
	}{
		{"a valid create", create(foo("web", ptr.To[int32](10), defaultImage)), nil, 0},
		{"no replicas", create(foo("web", nil, "")), nil, 0},
		{"zero replicas", create(foo("web", ptr.To[int32](0), "")), nil, 0},
		{"a bad name and too many replicas", create(invalid), []string{"spec.deployment.name", "spec.deployment.replicas"}, 0},
		{"a name of 64 characters", create(foo(strings.Repeat("a", 64), nil, "")), []string{"spec.deployment.name"}, 0},
		{"negative replicas", create(foo("web", ptr.To[int32](-1), "")), []string{"spec.deployment.replicas"}, 0},
		{"a deprecated registry", create(foo("web", nil, "k8s.gcr.io/pause:3.9")), nil, 1},
		{"a rename", update(foo("web", nil, ""), foo("web2", nil, "")), []string{"spec.deployment.name"}, 0},
		{"a scale", update(foo("web", nil, ""), foo("web", ptr.To[int32](3), "")), nil, 0},
		{"a scale beyond 10", update(foo("web", nil, ""), foo("web", ptr.To[int32](11), "")), []string{"spec.deployment.replicas"}, 0},
		// A Foo stored before the rules (or without the webhook) must stay
		// writable as long as its spec does not change: the operator's
		// finalizer, and its removal at deletion, are updates too.
		{"an unchanged invalid spec", update(invalid, invalid.DeepCopy()), nil, 0},
		{"an unchanged deprecated registry", update(foo("web", nil, "k8s.gcr.io/pause:3.9"), foo("web", nil, "k8s.gcr.io/pause:3.9")), nil, 0},
		{"a delete", func(ctx context.Context) (admission.Warnings, error) { return v.ValidateDelete(ctx, invalid) }, nil, 0},
	} {
		warnings, err := c.call(t.Context())
		if len(warnings) != c.warnings {
			t.Errorf("%s: warnings %q, want %d", c.what, warnings, c.warnings)
		}
		if c.fields == nil {
			if err != nil {
				t.Errorf("%s: refused: %v", c.what, err)
			}
			continue
		}
		if !apierrors.IsInvalid(err) {
			t.Errorf("%s: got %v, want 422 Invalid", c.what, err)
			continue
		}
		var fields []string
		for _, cause := range err.(apierrors.APIStatus).Status().Details.Causes {
			fields = append(fields, cause.Field)
		}
		if !slices.Equal(fields, c.fields) {
			t.Errorf("%s: refused on %v, want %v: %v", c.what, fields, c.fields, err)
		}
	}
}
