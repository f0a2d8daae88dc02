package admission

import (
	"bytes"
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func TestLocateObjects(t *testing.T) {
	for _, tc := range []struct {
		body        string
		object, old string
		ok          bool
	}{
		{`{"request":{"object":{"a":[1,"}"]},"oldObject":null}}`, `{"a":[1,"}"]}`, ``, true},
		{` { "kind" : "x" , "request" : { "oldObject" : {"b":"\"{"} , "object":"s" } } `, `"s"`, `{"b":"\"{"}`, true},
		{`{"request":{"object":12.5e3,"oldObject":true}}`, `12.5e3`, `true`, true},
		{`{"request":{"\u006fbject":{"x":1},"Object":{"y":2}}}`, `{"x":1}`, ``, true},
		{`{"request":null}`, ``, ``, true},
		{`{"kind":"AdmissionReview"}`, ``, ``, true},
		{`{"request":{}}`, ``, ``, true},
		{`{"request":{"object":{},"object":{}}}`, ``, ``, false},
		{`{"request":{"oldObject":1,"old\u004fbject":2}}`, ``, ``, false},
		{`{"request":{},"request":{}}`, ``, ``, false},
		{`{"request":[]}`, ``, ``, false},
		{`[]`, ``, ``, false},
	} {
		got, ok := locateObjects([]byte(tc.body))
		if ok != tc.ok || string(got.object) != tc.object || string(got.oldObject) != tc.old {
			t.Errorf("locateObjects(%s) = %q, %q, %v; want %q, %q, %v", tc.body, got.object, got.oldObject, ok, tc.object, tc.old, tc.ok)
		}
	}
}

// FuzzLocateObjects checks locateObjects against the JSON decoder: where
// both take a body, they find the same objects.
func FuzzLocateObjects(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","object":` + seedDeployment + `,"oldObject":` + seedPod + `}}`,
		`{"request":{"object":{"a":[1,"}\\"]"]},"oldObject":null}}`,
		`{"request":{"\u006fbject":[{"x":"\u0022"}],"Object":{"y":2}}}`,
		`{"request":{"object":-1.5E+3 ,"oldObject":false}}`,
		`{"request":{"object":{},"object":{}}}`,
		`{"request":null}`, `[]`, `"x"`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := locateObjects(body) // never panics, whatever body is
		var ref struct {
			Request *struct {
				Object    json.RawMessage `json:"object"`
				OldObject json.RawMessage `json:"oldObject"`
			} `json:"request"`
		}
		if !ok || utiljson.Unmarshal(body, &ref) != nil {
			return
		}
		var object, old []byte
		if ref.Request != nil {
			object, old = ref.Request.Object, ref.Request.OldObject
		}
		if bytes.Equal(object, null) {
			object = nil
		}
		if bytes.Equal(old, null) {
			old = nil
		}
		if !bytes.Equal(got.object, object) || !bytes.Equal(got.oldObject, old) {
			t.Fatalf("in %s found %q and %q, the decoder %q and %q", body, got.object, got.oldObject, object, old)
		}
	})
}

// FuzzDecodeTyped checks the fast decoding of typed handlers against the
// slow one: a review decodeTyped takes decodes the same way with
// decodeReview, and its objects are what their raw JSON decodes to.
func FuzzDecodeTyped(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"UPDATE","object":` +
			seedDeployment + `,"oldObject":` + seedDeployment + `,"dryRun":true}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","object":null,"oldObject":{"metadata":{"name":"x"}}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","\u006fbject":{"spec":{"replicas":3}}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","object":{"spec":{"replicas":"3"}}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, obj, old, ok := decodeTyped[*appsv1.Deployment, *appsv1.Deployment](body)
		if !ok {
			return
		}
		slow, err := decodeReview(body)
		if err != nil {
			t.Fatalf("decodeTyped took %s, decodeReview fails: %v", body, err)
		}
		if g, w := mustMarshal(t, req.AdmissionRequest), mustMarshal(t, slow.AdmissionRequest); !bytes.Equal(g, w) {
			t.Fatalf("decodeTyped decoded\n%s\ndecodeReview\n%s", g, w)
		}
		for _, o := range []struct {
			got *appsv1.Deployment
			raw []byte
		}{{obj, req.Object.Raw}, {old, req.OldObject.Raw}} {
			if (o.got == nil) != (len(o.raw) == 0) {
				t.Fatalf("decoded %v from %q", o.got, o.raw)
			}
			if o.got == nil {
				continue
			}
			var want appsv1.Deployment
			if err := utiljson.Unmarshal(o.raw, &want); err != nil {
				t.Fatalf("decoded %+v from %s, which does not decode: %v", o.got, o.raw, err)
			}
			if g, w := mustMarshal(t, o.got), mustMarshal(t, &want); !bytes.Equal(g, w) {
				t.Fatalf("decoded\n%s\nfrom %s", g, o.raw)
			}
		}
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
