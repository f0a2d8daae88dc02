package protowatch_test

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restwatch "k8s.io/client-go/rest/watch"
)

// codecs are the API server's and client-go's serializers of the
// built-in kinds.
var codecs = serializer.NewCodecFactory(scheme.Scheme)

func protobufInfo(t testing.TB) runtime.SerializerInfo {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	return info
}

// encodeObject encodes obj as the API server does: the magic prefix and an
// Unknown with its apiVersion and kind.
func encodeObject(t testing.TB, obj runtime.Object) []byte {
	b, err := runtime.Encode(codecs.EncoderForVersion(protobufInfo(t).Serializer, corev1.SchemeGroupVersion), obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// encodeStream encodes events as the API server's protobuf watch does:
// length-delimited frames of WatchEvents around encoded objects.
func encodeStream(t testing.TB, events []watch.Event) []byte {
	raw := make([]metav1.WatchEvent, len(events))
	for i, ev := range events {
		raw[i] = metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Raw: encodeObject(t, ev.Object)}}
	}
	return encodeRawStream(t, raw)
}

// encodeRawStream encodes events whose objects are encoded already.
func encodeRawStream(t testing.TB, events []metav1.WatchEvent) []byte {
	info := protobufInfo(t)
	var buf bytes.Buffer
	enc := streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(&buf), info.StreamSerializer.Serializer)
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// clientGoWatch decodes a protobuf watch stream as client-go's REST client
// does (rest.Request.Watch's newStreamWatcher).
func clientGoWatch(t testing.TB, body io.ReadCloser) watch.Interface {
	n := runtime.NewClientNegotiator(codecs.WithoutConversion(), corev1.SchemeGroupVersion)
	objects, events, framer, err := n.StreamDecoder(runtime.ContentTypeProtobuf, map[string]string{"stream": "watch"})
	if err != nil {
		t.Fatal(err)
	}
	return watch.NewStreamWatcher(restwatch.NewDecoder(streaming.NewDecoder(framer.NewFrameReader(body), events), objects),
		apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding"))
}

// drain returns every event of w until it closes.
func drain(w watch.Interface) []watch.Event {
	var out []watch.Event
	for ev := range w.ResultChan() {
		out = append(out, ev)
	}
	return out
}

func body(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

// closer records that the stream was closed.
type closer struct {
	r      io.ReadCloser
	closed atomic.Bool
}

func (c *closer) Read(b []byte) (int, error) { return c.r.Read(b) }
func (c *closer) Close() error               { c.closed.Store(true); return c.r.Close() }
