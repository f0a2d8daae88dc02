package bench

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	restclientwatch "k8s.io/client-go/rest/watch"

	"github.com/steadyctl/steady/bench/internal/e2e/api/v1alpha1"
)

// crWire is the e2e's list of Widgets and a watch stream of them, encoded
// as the API server sends them in one format.
type crWire struct {
	mediaType, streamType string
	list, stream          []byte
}

const crObjects = 10000

var (
	crWireOnce sync.Once
	crWires    map[string]crWire
	crCodecs   = serializer.NewCodecFactory(crScheme(), serializer.WithSerializer(cbor.NewSerializerInfo))
)

func crScheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

// crWidget is one Widget of the e2e (-kind cr, -payload 256) as the API
// server returns it after the load generator's first patch: metadata with
// managedFields of the create and the patch.
func crWidget(i int) *v1alpha1.Widget {
	ts := metav1.NewTime(time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC))
	field := metav1.NewFieldsV1
	return &v1alpha1.Widget{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "obj-" + strconv.Itoa(i), Namespace: "bench-e2e", UID: types.UID(fmt.Sprintf("6f1c2a3e-1b2c-4d5e-8f90-%012d", i)),
			ResourceVersion: strconv.Itoa(1000 + i), Generation: 2, CreationTimestamp: ts,
			Labels:      map[string]string{"app": "bench-e2e"},
			Annotations: map[string]string{"bench.steady.dev/written": "1795550400123456789"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "e2e", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "bench.steady.dev/v1alpha1", Time: &ts, FieldsType: "FieldsV1",
					FieldsV1: field(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:data":{".":{},"f:filler":{}}}}`)},
				{Manager: "e2e-load", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "bench.steady.dev/v1alpha1", Time: &ts, FieldsType: "FieldsV1",
					FieldsV1: field(`{"f:metadata":{"f:annotations":{".":{},"f:bench.steady.dev/written":{}}},"f:spec":{"f:data":{"f:value":{}}}}`)},
			},
		},
		Spec: v1alpha1.WidgetSpec{Data: map[string]string{"value": strconv.Itoa(i), "filler": strings.Repeat("x", 256)}},
	}
}

func crWireFormats(b *testing.B) map[string]crWire {
	crWireOnce.Do(func() {
		list := &v1alpha1.WidgetList{TypeMeta: metav1.TypeMeta{APIVersion: "bench.steady.dev/v1alpha1", Kind: "WidgetList"},
			ListMeta: metav1.ListMeta{ResourceVersion: "20000"}}
		for i := range crObjects {
			list.Items = append(list.Items, *crWidget(i))
		}
		crWires = map[string]crWire{}
		for format, mt := range map[string]string{"json": k8sruntime.ContentTypeJSON, "cbor": k8sruntime.ContentTypeCBOR} {
			info, ok := k8sruntime.SerializerInfoForMediaType(crCodecs.SupportedMediaTypes(), mt)
			if !ok {
				panic("no serializer for " + mt)
			}
			w := crWire{mediaType: mt, streamType: mt}
			var buf bytes.Buffer
			if err := info.Serializer.Encode(list, &buf); err != nil {
				panic(err)
			}
			w.list = bytes.Clone(buf.Bytes())
			// A watch stream as the API server writes it: each event's object
			// encoded on its own, embedded raw in a framed WatchEvent.
			buf.Reset()
			enc := streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(&buf), info.StreamSerializer.Serializer)
			for i := range list.Items {
				var obj bytes.Buffer
				if err := info.Serializer.Encode(&list.Items[i], &obj); err != nil {
					panic(err)
				}
				ev := &metav1.WatchEvent{Type: string(watch.Modified), Object: k8sruntime.RawExtension{Raw: obj.Bytes()}}
				if err := enc.Encode(ev); err != nil {
					panic(err)
				}
			}
			w.stream = bytes.Clone(buf.Bytes())
			crWires[format] = w
		}
	})
	return crWires
}

// BenchmarkCRDecode decodes the e2e's 10,000 Widgets from a LIST and from
// a watch stream, into *v1alpha1.Widget, with the decoders a REST client
// negotiates for JSON (sigs.k8s.io/json) and for CBOR (apimachinery's
// serializer/cbor).
func BenchmarkCRDecode(b *testing.B) {
	wires := crWireFormats(b)
	for _, format := range []string{"json", "cbor"} {
		w := wires[format]
		neg := k8sruntime.NewClientNegotiator(crCodecs.WithoutConversion(), v1alpha1.SchemeGroupVersion)
		b.Run("list/format="+format, func(b *testing.B) {
			dec, err := neg.Decoder(w.mediaType, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(w.list)))
			b.ReportMetric(float64(len(w.list)), "wire-bytes")
			for b.Loop() {
				var list v1alpha1.WidgetList
				if err := k8sruntime.DecodeInto(dec, w.list, &list); err != nil {
					b.Fatal(err)
				}
				if len(list.Items) != crObjects {
					b.Fatalf("%d items", len(list.Items))
				}
			}
		})
		b.Run("watch/format="+format, func(b *testing.B) {
			objDec, streamSer, framer, err := neg.StreamDecoder(w.streamType, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(w.stream)))
			for b.Loop() {
				frames := framer.NewFrameReader(io.NopCloser(bytes.NewReader(w.stream)))
				dec := restclientwatch.NewDecoder(streaming.NewDecoder(frames, streamSer), objDec)
				n := 0
				for {
					_, obj, err := dec.Decode()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, ok := obj.(*v1alpha1.Widget); !ok {
						b.Fatalf("decoded %T", obj)
					}
					n++
				}
				if n != crObjects {
					b.Fatalf("%d events", n)
				}
			}
		})
	}
}
