package conversion_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadyctl/steady/conversion"
)

// DiskV1 is version v1 of kind Disk, the hub: its size is a quantity.
type DiskV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size resource.Quantity `json:"size"`
	} `json:"spec"`
}

// Hub marks v1 as the version Disk converts through.
func (*DiskV1) Hub() {}

// DeepCopyObject is what controller-gen would generate.
func (d *DiskV1) DeepCopyObject() runtime.Object {
	out := *d
	d.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Size = d.Spec.Size.DeepCopy()
	return &out
}

// DiskV1alpha1 is version v1alpha1 of Disk, which counted gibibytes.
type DiskV1alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		GiB int64 `json:"gib"`
	} `json:"spec"`
}

// ConvertTo converts a v1alpha1 Disk to the hub.
func (d *DiskV1alpha1) ConvertTo(dst conversion.Hub) error {
	hub, ok := dst.(*DiskV1)
	if !ok {
		return fmt.Errorf("cannot convert a v1alpha1 Disk to %T", dst)
	}
	hub.ObjectMeta = d.ObjectMeta
	hub.Spec.Size = *resource.NewQuantity(d.Spec.GiB<<30, resource.BinarySI)
	return nil
}

// ConvertFrom converts the hub to a v1alpha1 Disk, rounding up to whole
// gibibytes.
func (d *DiskV1alpha1) ConvertFrom(src conversion.Hub) error {
	hub, ok := src.(*DiskV1)
	if !ok {
		return fmt.Errorf("cannot convert %T to a v1alpha1 Disk", src)
	}
	d.ObjectMeta = hub.ObjectMeta
	d.Spec.GiB = (hub.Spec.Size.Value() + 1<<30 - 1) >> 30
	return nil
}

// DeepCopyObject is what controller-gen would generate.
func (d *DiskV1alpha1) DeepCopyObject() runtime.Object {
	out := *d
	d.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// The conversion webhook of a kind with two versions, answering the
// review the API server sends when a client reads a Disk stored in
// v1alpha1 as a v1 Disk.
func Example() {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "storage.example.com", Version: "v1", Kind: "Disk"}, &DiskV1{})
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "storage.example.com", Version: "v1alpha1", Kind: "Disk"}, &DiskV1alpha1{})
	if err := conversion.CheckKind(scheme, schema.GroupKind{Group: "storage.example.com", Kind: "Disk"}); err != nil {
		fmt.Println(err)
		return
	}
	handler := conversion.NewHandler(scheme) // in an operator: srv.Handle("/convert", handler)

	review := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{
		"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","desiredAPIVersion":"storage.example.com/v1",
		"objects":[{"apiVersion":"storage.example.com/v1alpha1","kind":"Disk",
			"metadata":{"name":"data","namespace":"default"},"spec":{"gib":10}}]}}`
	req := httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(review))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	fmt.Println(rec.Code)
	fmt.Println(rec.Body)
	// Output:
	// 200
	// {"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","convertedObjects":[{"kind":"Disk","apiVersion":"storage.example.com/v1","metadata":{"name":"data","namespace":"default"},"spec":{"size":"10Gi"}}],"result":{"metadata":{},"status":"Success"}}}
}
