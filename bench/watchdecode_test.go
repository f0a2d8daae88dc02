package bench

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restwatch "k8s.io/client-go/rest/watch"

	"github.com/steadyctl/steady/internal/protowatch"
)

// BenchmarkWatchDecode decodes a protobuf watch stream of 10,000 ConfigMap
// events (issue 24: until the cache syncs, most of the CPU of steady's
// end-to-end run was client-go's watch decoding): with client-go's
// decoders, as rest.Request.Watch sets them up, and with steady's
// (internal/protowatch), which the typed informers use. With
// managedFields=drop the objects are wanted without managedFields, as a
// factory's informers keep them: client-go decodes them and the informer
// drops them; steady cuts them from the bytes before decoding.
func BenchmarkWatchDecode(b *testing.B) {
	const events = 10_000
	stream := watchStream(b, events)
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	objects, eventSerializer, framer, err := k8sruntime.NewClientNegotiator(codecs.WithoutConversion(), corev1.SchemeGroupVersion).
		StreamDecoder(k8sruntime.ContentTypeProtobuf, map[string]string{"stream": "watch"})
	if err != nil {
		b.Fatal(err)
	}
	for _, drop := range []bool{false, true} {
		name := "managedFields=keep"
		if drop {
			name = "managedFields=drop"
		}
		b.Run(name, func(b *testing.B) {
			b.Run("impl=steady", func(b *testing.B) {
				kind := protowatch.NewKind("ConfigMap", func() protowatch.Object { return &corev1.ConfigMap{} }, drop)
				decodeAll(b, events, func(body io.ReadCloser) watch.Decoder { return kind.NewDecoder(body) }, stream, false)
			})
			b.Run("impl=client-go", func(b *testing.B) {
				decodeAll(b, events, func(body io.ReadCloser) watch.Decoder {
					return restwatch.NewDecoder(streaming.NewDecoder(framer.NewFrameReader(body), eventSerializer), objects)
				}, stream, drop)
			})
		})
	}
}

// decodeAll decodes the stream of n events with the decoders newDecoder
// makes, b.N times; with drop it drops managedFields after, as an
// informer does.
func decodeAll(b *testing.B, n int, newDecoder func(io.ReadCloser) watch.Decoder, stream []byte, drop bool) {
	b.ReportAllocs()
	for b.Loop() {
		d := newDecoder(io.NopCloser(bytes.NewReader(stream)))
		for range n {
			_, obj, err := d.Decode()
			if err != nil {
				b.Fatal(err)
			}
			if drop {
				obj.(*corev1.ConfigMap).ManagedFields = nil
			}
		}
		if _, _, err := d.Decode(); err != io.EOF {
			b.Fatalf("after %d events: %v, want EOF", n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
}

// watchStream encodes n ADDED events of ConfigMaps as kube-apiserver's
// protobuf watch does: each with 256 bytes of data and the managedFields
// entry the server writes for its creator.
func watchStream(b *testing.B, n int) []byte {
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	info, _ := k8sruntime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), k8sruntime.ContentTypeProtobuf)
	objects := codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion)
	var buf bytes.Buffer
	enc := streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(&buf), info.StreamSerializer.Serializer)
	r := rand.New(rand.NewPCG(1, 2))
	payload := strings.Repeat("x", 256)
	for i := range n {
		meta := realisticMeta(r, i)
		meta.ManagedFields = []metav1.ManagedFieldsEntry{{
			Manager: "e2e-seed", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: ptr(metav1.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))), FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:payload":{}},"f:metadata":{"f:annotations":{".":{},"f:example.com/checksum":{},"f:example.com/observed":{}},"f:labels":{".":{},"f:app.kubernetes.io/instance":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"x\"}":{}}}}`),
		}}
		raw, err := k8sruntime.Encode(objects, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"payload": payload}})
		if err != nil {
			b.Fatal(err)
		}
		if err := enc.Encode(&metav1.WatchEvent{Type: string(watch.Added), Object: k8sruntime.RawExtension{Raw: raw}}); err != nil {
			b.Fatal(err)
		}
	}
	return buf.Bytes()
}

// BenchmarkWatchToCache is what a compact cache of ConfigMaps pays per
// watch event, managedFields dropped, for an object and the bytes it
// stores: decoding with the bytes kept, cut while decoding, and taken as
// the cache takes them (impl=steady, what informers do), against decoding
// and then encoding the object (impl=steady-reencode, what they did).
func BenchmarkWatchToCache(b *testing.B) {
	const events = 10_000
	stream := watchStream(b, events)
	run := func(b *testing.B, keep bool) {
		kind := protowatch.NewKind("ConfigMap", func() protowatch.Object { return &corev1.ConfigMap{} }, true)
		table := protowatch.NewEncodings()
		if keep {
			kind.KeepEncodings(table)
		}
		b.ReportAllocs()
		for b.Loop() {
			d := kind.NewDecoder(io.NopCloser(bytes.NewReader(stream)))
			for range events {
				_, obj, err := d.Decode()
				if err != nil {
					b.Fatal(err)
				}
				cm := obj.(*corev1.ConfigMap)
				var data []byte
				if keep {
					data, _ = table.Take(cm.ResourceVersion, cm.Namespace, cm.Name)
				} else {
					data, err = cm.Marshal()
				}
				if err != nil || len(data) == 0 {
					b.Fatalf("no bytes for the cache: %v", err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
	}
	b.Run("impl=steady", func(b *testing.B) { run(b, true) })
	b.Run("impl=steady-reencode", func(b *testing.B) { run(b, false) })
}
