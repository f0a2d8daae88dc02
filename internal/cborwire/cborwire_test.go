package cborwire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/cborwire"
	"github.com/steadyctl/steady/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// thing is a plain custom resource's Go type.
type thing = testkit.Gadget

// blob holds raw JSON, which comes back from CBOR as CBOR.
type blob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Data              runtime.RawExtension `json:"data"`
}

func (b *blob) DeepCopyObject() runtime.Object { out := *b; return &out }

// anything holds an interface value.
type anything struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Value             any `json:"value"`
}

func (a *anything) DeepCopyObject() runtime.Object { out := *a; return &out }

var thingGV = schema.GroupVersion{Group: "cborwire.steady.dev", Version: "v1"}

func scheme(kinds map[string]runtime.Object) *runtime.Scheme {
	s := runtime.NewScheme()
	for kind, obj := range kinds {
		s.AddKnownTypeWithName(thingGV.WithKind(kind), obj)
	}
	metav1.AddToGroupVersion(s, thingGV)
	return s
}

func TestEligible(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kinds map[string]runtime.Object
		want  bool
	}{
		{"plain data", map[string]runtime.Object{"Thing": &thing{}}, true},
		{"a RawExtension", map[string]runtime.Object{"Thing": &thing{}, "Blob": &blob{}}, false},
		{"an interface", map[string]runtime.Object{"Anything": &anything{}}, false},
		{"only metav1's types", nil, false},
	} {
		if got := cborwire.Eligible(scheme(tc.kinds), thingGV); got != tc.want {
			t.Errorf("%s: Eligible = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// server is a scripted API server for the fault a real one does not
// produce: it answers in CBOR but refuses CBOR bodies (415).
type server struct {
	enc runtime.Encoder
	mu  sync.Mutex
	got []string // the Content-Type of each POST
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	obj := &thing{ObjectMeta: metav1.ObjectMeta{Name: "t", ResourceVersion: "1"}}
	if r.Method == http.MethodPost {
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		s.mu.Lock()
		s.got = append(s.got, ct)
		s.mu.Unlock()
		if ct != runtime.ContentTypeJSON {
			w.Header().Set("Content-Type", runtime.ContentTypeJSON)
			w.WriteHeader(http.StatusUnsupportedMediaType)
			_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType})
			return
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, obj); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	var buf bytes.Buffer
	if err := s.enc.Encode(obj, &buf); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", runtime.ContentTypeCBOR)
	_, _ = w.Write(buf.Bytes())
}

// A write the server refuses as CBOR is sent once more as JSON, and the
// client writes JSON from then on; answers are still decoded from CBOR.
func TestDoFallsBackToJSONOn415(t *testing.T) {
	s := scheme(map[string]runtime.Object{"Thing": &thing{}})
	enc, err := runtime.NewClientNegotiator(cborwire.Serializer(s, false), thingGV).Encoder(runtime.ContentTypeCBOR, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{enc: enc}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cfg := &rest.Config{Host: hs.URL, APIPath: "/apis"}
	cfg.GroupVersion = &thingGV
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cborwire.New(cfg, hc, s, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if c.WritesCBOR() {
		t.Fatal("writes CBOR before the server answered in CBOR")
	}
	var got thing
	if err := c.Get().Resource("things").Name("t").Do(ctx).Into(&got); err != nil || got.Name != "t" {
		t.Fatalf("get: %+v, %v", got, err)
	}
	if !c.WritesCBOR() {
		t.Fatal("does not write CBOR after a CBOR answer")
	}
	for i := range 2 {
		in := &thing{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Spec: map[string]string{"k": "v"}}
		var out thing
		err := cborwire.Do(ctx, c, in, &out, func() *rest.Request { return c.Post().Resource("things") })
		if err != nil || !reflect.DeepEqual(out.Spec, in.Spec) {
			t.Fatalf("write %d: %+v, %v", i, out, err)
		}
	}
	want := []string{runtime.ContentTypeCBOR, runtime.ContentTypeJSON, runtime.ContentTypeJSON}
	if !reflect.DeepEqual(srv.got, want) {
		t.Errorf("POST bodies went as %q, want %q", srv.got, want)
	}
	if c.WritesCBOR() {
		t.Error("writes CBOR after a 415")
	}
}
