package protowatch_test

import (
	"bytes"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/internal/protowatch"
)

// Encode writes what client-go's protobuf serializer writes for a request
// body (but for the envelope's empty contentEncoding and contentType,
// which it spells out), and the API server's decoder reads it back as the
// same object of the same kind.
func TestEncodeAsClientGo(t *testing.T) {
	cm := configMap("a", "10")
	got, err := protowatch.Encode("v1", "ConfigMap", cm)
	if err != nil {
		t.Fatal(err)
	}
	want := encodeObject(t, cm)
	if emptyTail := []byte{0x1a, 0, 0x22, 0}; !bytes.Equal(append(bytes.Clone(got), emptyTail...), want) {
		t.Fatalf("Encode wrote\n%q\nclient-go\n%q", got, want)
	}
	obj, gvk, err := codecs.UniversalDeserializer().Decode(got, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gvk.Kind != "ConfigMap" || gvk.Version != "v1" || gvk.Group != "" {
		t.Fatalf("decoded as %v", gvk)
	}
	back := obj.(*corev1.ConfigMap)
	back.TypeMeta = cm.TypeMeta // the decoder sets the envelope's
	if !reflect.DeepEqual(back, cm) {
		t.Fatalf("decoded\n%#v\nwant\n%#v", back, cm)
	}
	if cm.APIVersion != "" || cm.Kind != "" {
		t.Fatal("Encode set the object's apiVersion or kind")
	}
}

// Decode reads an answer as client-go's Result.Into does, reports false
// for a Status (an error client-go turns into an API error), and an error
// for bytes that are not protobuf.
func TestDecodeAsClientGo(t *testing.T) {
	body := encodeObject(t, configMap("a", "10"))
	dec, err := runtime.NewClientNegotiator(codecs.WithoutConversion(), corev1.SchemeGroupVersion).Decoder(runtime.ContentTypeProtobuf, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.ConfigMap{}
	if _, _, err := dec.Decode(body, nil, want); err != nil {
		t.Fatal(err)
	}
	got := &corev1.ConfigMap{}
	if ok, err := protowatch.Decode(body, "ConfigMap", got); !ok || err != nil {
		t.Fatalf("Decode: %v, %v", ok, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%#v\nclient-go\n%#v", got, want)
	}
	status := encodeObject(t, &apierrors.NewConflict(corev1.Resource("configmaps"), "a", nil).ErrStatus)
	if ok, err := protowatch.Decode(status, "ConfigMap", &corev1.ConfigMap{}); ok || err != nil {
		t.Fatalf("Decode of a Status: %v, %v; want false, nil", ok, err)
	}
	if _, err := protowatch.Decode([]byte(`{"kind":"ConfigMap"}`), "ConfigMap", &corev1.ConfigMap{}); err == nil {
		t.Fatal("Decode of JSON: no error")
	}
}
