package protowatch_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/steadyctl/steady/internal/protowatch"
)

// clientGoList decodes a protobuf list answer as client-go's
// rest.Result.Into does.
func clientGoList(t *testing.T, body []byte) *corev1.ConfigMapList {
	n := runtime.NewClientNegotiator(codecs.WithoutConversion(), corev1.SchemeGroupVersion)
	dec, err := n.Decoder(runtime.ContentTypeProtobuf, nil)
	if err != nil {
		t.Fatal(err)
	}
	list := &corev1.ConfigMapList{}
	if _, _, err := dec.Decode(body, nil, list); err != nil {
		t.Fatal(err)
	}
	return list
}

func TestListDecodesAsClientGo(t *testing.T) {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "20", Continue: "next"},
		Items: []corev1.ConfigMap{*configMap("a", "10"), {ObjectMeta: metav1.ObjectMeta{Name: "bare"}}, *configMap("b", "12")}}
	body := encodeObject(t, list)
	want := clientGoList(t, body)
	got := &corev1.ConfigMapList{}
	if ok, err := protowatch.NewList("ConfigMapList").Decode(body, got); !ok || err != nil {
		t.Fatalf("Decode: %v, %v", ok, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("list differs from client-go's:\n got %#v\nwant %#v", got, want)
	}
}

// A Status answer is left to client-go's decoding.
func TestListLeavesStatus(t *testing.T) {
	body := encodeObject(t, &apierrors.NewResourceExpired("gone").ErrStatus)
	got := &corev1.ConfigMapList{}
	if ok, err := protowatch.NewList("ConfigMapList").Decode(body, got); ok || err != nil {
		t.Fatalf("Decode of a Status: %v, %v; want false, nil", ok, err)
	}
	if _, err := protowatch.NewList("ConfigMapList").Decode([]byte("{}"), got); err == nil {
		t.Fatal("Decode of JSON: no error")
	}
}
