package conversiontest_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/randfill"

	"github.com/steadyctl/steady/conversion"
	"github.com/steadyctl/steady/conversion/conversiontest"
)

// ShirtV1 is version v1 of kind Shirt, the hub.
type ShirtV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size string `json:"size"`
	} `json:"spec"`
}

// Hub marks v1 as the version Shirt converts through.
func (*ShirtV1) Hub() {}

// DeepCopyObject is what controller-gen would generate.
func (s *ShirtV1) DeepCopyObject() runtime.Object {
	out := *s
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// ShirtV1beta1Spec has a nickname, which v1 forgot.
type ShirtV1beta1Spec struct {
	Size     string `json:"size"`
	Nickname string `json:"nickname"`
}

// ShirtV1beta1 is version v1beta1 of Shirt.
type ShirtV1beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ShirtV1beta1Spec `json:"spec"`
}

// ConvertTo loses the nickname: the hub has nowhere to keep it.
func (s *ShirtV1beta1) ConvertTo(dst conversion.Hub) error {
	hub, ok := dst.(*ShirtV1)
	if !ok {
		return fmt.Errorf("cannot convert a v1beta1 Shirt to %T", dst)
	}
	hub.ObjectMeta = s.ObjectMeta
	hub.Spec.Size = s.Spec.Size
	return nil
}

// ConvertFrom converts the hub to a v1beta1 Shirt.
func (s *ShirtV1beta1) ConvertFrom(src conversion.Hub) error {
	hub, ok := src.(*ShirtV1)
	if !ok {
		return fmt.Errorf("cannot convert %T to a v1beta1 Shirt", src)
	}
	s.ObjectMeta = hub.ObjectMeta
	s.Spec.Size = hub.Spec.Size
	return nil
}

// DeepCopyObject is what controller-gen would generate.
func (s *ShirtV1beta1) DeepCopyObject() runtime.Object {
	out := *s
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// printer is a testing.TB that prints what RoundTrip reports. A test
// passes its own t instead.
type printer struct{ testing.TB }

func (printer) Helper() {}
func (printer) Errorf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}

// RoundTrip catches the nickname that v1beta1's ConvertTo drops. The fill
// function gives sizes and nicknames readable values.
func Example() {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Shirt"}, &ShirtV1{})
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Shirt"}, &ShirtV1beta1{})

	var t testing.TB = printer{} // in a test: func TestShirtConversion(t *testing.T)
	conversiontest.RoundTrip(t, scheme, schema.GroupKind{Group: "example.com", Kind: "Shirt"},
		conversiontest.WithSeed(1),
		conversiontest.WithFuncs(func(spec *ShirtV1beta1Spec, c randfill.Continue) {
			spec.Size = []string{"S", "M", "L"}[c.Intn(3)]
			spec.Nickname = fmt.Sprintf("shirt-%d", c.Intn(100))
		}))
	// Output:
	// conversiontest: Shirt.example.com v1beta1 -> v1 -> v1beta1: object 1 of 100 changed: Spec.Nickname: want "shirt-0", got "" (WithSeed(1) repeats it)
}
