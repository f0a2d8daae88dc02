package bench

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/internal/protowatch"
)

// BenchmarkWriteCodec is what a typed client of a ConfigMap does to the
// bytes of one write (issue 24): encode the object as the request body and
// decode the server's answer (the object as stored, managedFields
// included). client-go: the REST client's negotiated protobuf encoder
// (rest.Request.Body) and decoder (rest.Result.Into); steady: package
// protowatch, as package client uses it for the built-in kinds.
func BenchmarkWriteCodec(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	obj := &corev1.ConfigMap{ObjectMeta: realisticMeta(r, 7), Data: map[string]string{"payload": strings.Repeat("x", 256)}}
	stored := obj.DeepCopy()
	stored.ManagedFields = []metav1.ManagedFieldsEntry{{
		Manager: "e2e", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Time: ptr(metav1.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))), FieldsType: "FieldsV1",
		FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:payload":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`),
	}}
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	negotiator := k8sruntime.NewClientNegotiator(codecs.WithoutConversion(), corev1.SchemeGroupVersion)
	enc, err := negotiator.Encoder(k8sruntime.ContentTypeProtobuf, nil)
	if err != nil {
		b.Fatal(err)
	}
	dec, err := negotiator.Decoder(k8sruntime.ContentTypeProtobuf, nil)
	if err != nil {
		b.Fatal(err)
	}
	answer, err := k8sruntime.Encode(enc, stored)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=steady", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := protowatch.Encode("v1", "ConfigMap", obj); err != nil {
				b.Fatal(err)
			}
			out := &corev1.ConfigMap{}
			if ok, err := protowatch.Decode(answer, "ConfigMap", out); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := k8sruntime.Encode(enc, obj); err != nil {
				b.Fatal(err)
			}
			out := &corev1.ConfigMap{}
			if _, _, err := dec.Decode(answer, nil, out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
