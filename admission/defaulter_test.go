package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/admission"
)

type defaultFunc func(ctx context.Context, d *appsv1.Deployment) error

func (f defaultFunc) Default(ctx context.Context, d *appsv1.Deployment) error { return f(ctx, d) }

// sent is a Deployment as the API server sends it: fields in its order,
// no creationTimestamp, explicit zero values, and fields this Go type
// does not know (from a newer API version, say).
const sent = `{"apiVersion":"apps/v1","kind":"Deployment",` +
	`"metadata":{"name":"web","namespace":"shop","labels":{"app":"web"}},` +
	`"spec":{"futureField":{"big":9223372036854775807,"small":1.50},"paused":false,` +
	`"selector":{"matchLabels":{"app":"web"}},` +
	`"template":{"metadata":{"labels":{"app":"web"}},` +
	`"spec":{"containers":[{"name":"web","image":"nginx","futureContainerField":true}]}}}}`

// TestDefaulterPatch checks that the patch carries what Default changed
// and nothing of the typed round trip, and that applying it as the API
// server does gives the defaulted object with the unknown fields kept.
func TestDefaulterPatch(t *testing.T) {
	for _, tc := range []struct {
		name         string
		dflt         func(*appsv1.Deployment)
		patch        string
		lostUnknowns bool // the defaulter replaced an array holding one
	}{
		{"nothing", func(*appsv1.Deployment) {}, "", false},
		{"add", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](1) },
			`[{"op":"add","path":"/spec/replicas","value":1}]`, false},
		{"escaped keys", func(d *appsv1.Deployment) { d.Labels["example.com/team"], d.Labels["a~b"] = "<a&b>", "x" },
			`[{"op":"add","path":"/metadata/labels/a~0b","value":"x"},{"op":"add","path":"/metadata/labels/example.com~1team","value":"<a&b>"}]`, false},
		{"new map", func(d *appsv1.Deployment) { d.Annotations = map[string]string{"defaulted": "true"} },
			`[{"op":"add","path":"/metadata/annotations","value":{"defaulted":"true"}}]`, false},
		{"remove", func(d *appsv1.Deployment) { delete(d.Labels, "app"); d.Labels["team"] = "a" },
			`[{"op":"remove","path":"/metadata/labels/app"},{"op":"add","path":"/metadata/labels/team","value":"a"}]`, false},
		{"remove map", func(d *appsv1.Deployment) { delete(d.Labels, "app") }, // empty: omitted
			`[{"op":"remove","path":"/metadata/labels"}]`, false},
		{"replace in array", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.27" },
			`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.27"}]`, false},
		{"big number", func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](1<<53 + 1) },
			`[{"op":"add","path":"/spec/template/spec/activeDeadlineSeconds","value":9007199254740993}]`, false},
		{"zero value", func(d *appsv1.Deployment) { d.Spec.Paused = true },
			`[{"op":"replace","path":"/spec/paused","value":true}]`, false},
		{"grow array", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "proxy", Image: "envoy"})
		}, `[{"op":"replace","path":"/spec/template/spec/containers","value":[` +
			`{"image":"nginx","name":"web","resources":{}},{"image":"envoy","name":"proxy","resources":{}}]}]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := admission.NewDefaulter[*appsv1.Deployment](defaultFunc(func(_ context.Context, d *appsv1.Deployment) error {
				tc.dflt(d)
				return nil
			}))
			req := request(admissionv1.Create)
			req.Object = raw(t, sent)
			resp := admit(t, h, req)
			if !resp.Allowed || resp.Result != nil {
				t.Fatalf("response %+v, want allowed", resp)
			}
			if string(resp.Patch) != tc.patch {
				t.Errorf("patch\n%s\nwant\n%s", resp.Patch, tc.patch)
			}
			if (resp.PatchType != nil) != (tc.patch != "") {
				t.Errorf("patch type %v with patch %q", resp.PatchType, resp.Patch)
			}
			if tc.patch == "" {
				return
			}
			patched := applyPatch(t, []byte(sent), resp.Patch)
			want := typedRoundTrip(t, []byte(sent))
			tc.dflt(want)
			if got := typedRoundTrip(t, patched); !bytes.Equal(marshal(t, got), marshal(t, want)) {
				t.Errorf("patched object\n%s\nwant\n%s", marshal(t, got), marshal(t, want))
			}
			var doc struct {
				Spec struct {
					Future   json.RawMessage `json:"futureField"`
					Template struct {
						Spec struct{ Containers []map[string]any } `json:"spec"`
					} `json:"template"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(patched, &doc); err != nil {
				t.Fatal(err)
			}
			if string(doc.Spec.Future) != `{"big":9223372036854775807,"small":1.50}` {
				t.Errorf("futureField became %s", doc.Spec.Future)
			}
			if _, kept := doc.Spec.Template.Spec.Containers[0]["futureContainerField"]; kept == tc.lostUnknowns {
				t.Errorf("futureContainerField kept: %v, want %v", kept, !tc.lostUnknowns)
			}
		})
	}
}

func applyPatch(t testing.TB, doc, patch []byte) []byte {
	t.Helper()
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		t.Fatalf("patch %s: %v", patch, err)
	}
	out, err := p.Apply(doc)
	if err != nil {
		t.Fatalf("applying %s: %v", patch, err)
	}
	return out
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func typedRoundTrip(t *testing.T, doc []byte) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// TestDefaulterOperations checks that Default runs on CREATE and UPDATE,
// on the new object, and nowhere else.
func TestDefaulterOperations(t *testing.T) {
	for _, tc := range []struct {
		op     admissionv1.Operation
		called bool
	}{{admissionv1.Create, true}, {admissionv1.Update, true}, {admissionv1.Delete, false}, {admissionv1.Connect, false}} {
		var seen *appsv1.Deployment
		h := admission.NewDefaulter[*appsv1.Deployment](defaultFunc(func(_ context.Context, d *appsv1.Deployment) error {
			seen = d
			d.Spec.Replicas = ptr.To[int32](1)
			return nil
		}))
		req := request(tc.op)
		req.Object, req.OldObject = raw(t, deployment("new", 0)), raw(t, deployment("old", 0))
		if tc.op == admissionv1.Delete {
			req.Object = raw(t, nil)
		}
		resp := admit(t, h, req)
		switch {
		case !resp.Allowed:
			t.Errorf("%s denied: %+v", tc.op, resp.Result)
		case (seen != nil) != tc.called:
			t.Errorf("%s: Default called %v, want %v", tc.op, seen != nil, tc.called)
		case tc.called && (seen.Name != "new" || string(resp.Patch) != `[{"op":"replace","path":"/spec/replicas","value":1}]`):
			t.Errorf("%s: defaulted %s with patch %s", tc.op, seen.Name, resp.Patch)
		case !tc.called && resp.Patch != nil:
			t.Errorf("%s: patch %s", tc.op, resp.Patch)
		}
	}
}

func TestDefaulterDenies(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("no defaults for you"))
	for _, tc := range []struct {
		err     error
		code    int32
		reason  metav1.StatusReason
		message string
	}{
		{errors.New("cannot pick an image"), 403, metav1.StatusReasonForbidden, "cannot pick an image"},
		{forbidden, 403, metav1.StatusReasonForbidden, forbidden.Error()},
		{apierrors.NewServiceUnavailable("registry down"), 503, metav1.StatusReasonServiceUnavailable, "registry down"},
	} {
		h := admission.NewDefaulter[*appsv1.Deployment](defaultFunc(func(_ context.Context, d *appsv1.Deployment) error {
			d.Spec.Replicas = ptr.To[int32](1)
			return tc.err
		}))
		req := request(admissionv1.Create)
		req.Object = raw(t, sent)
		wantDenied(t, admit(t, h, req), tc.code, tc.reason, tc.message)
	}
}

func TestDefaulterDecodeError(t *testing.T) {
	h := admission.NewDefaulter[*appsv1.Deployment](defaultFunc(func(context.Context, *appsv1.Deployment) error {
		t.Error("Default called")
		return nil
	}))
	req := request(admissionv1.Create)
	req.Object = raw(t, `{"metadata":{"labels":["x"]}}`)
	resp := admit(t, h, req)
	wantDenied(t, resp, 400, metav1.StatusReasonBadRequest, resp.Result.Message)
	if !strings.HasPrefix(resp.Result.Message, "admission: object: cannot decode apps/v1 Deployment into *v1.Deployment: json: cannot unmarshal array") {
		t.Errorf("message %q", resp.Result.Message)
	}
}

// TestDefaulterContext checks that Default sees the request and the dry
// run: a defaulter with side effects must skip them on a dry run.
func TestDefaulterContext(t *testing.T) {
	var effects []string
	h := admission.NewDefaulter[*appsv1.Deployment](defaultFunc(func(ctx context.Context, d *appsv1.Deployment) error {
		req, ok := admission.RequestFrom(ctx)
		if !ok {
			return errors.New("no request")
		}
		if !req.IsDryRun() {
			effects = append(effects, "reserved "+d.Name+" for "+req.UserInfo.Username)
		}
		return nil
	}))
	for _, dry := range []bool{true, false} {
		req := request(admissionv1.Create)
		req.Object, req.DryRun = raw(t, deployment("web", 1)), ptr.To(dry)
		if resp := admit(t, h, req); !resp.Allowed {
			t.Fatalf("denied: %+v", resp.Result)
		}
	}
	if strings.Join(effects, ";") != "reserved web for alice" {
		t.Errorf("effects %q, want one, of the real request", effects)
	}
}

func TestDefaulterPanic(t *testing.T) {
	logs := &logSink{}
	h := admission.NewDefaulter[*appsv1.Deployment](defaultFunc(func(_ context.Context, d *appsv1.Deployment) error {
		d.Spec.Template.Spec.Containers[3].Image = "x"
		return nil
	}), admission.WithLogger(logs.logger()))
	req := request(admissionv1.Create)
	req.Object = raw(t, deployment("web", 1))
	wantDenied(t, admit(t, h, req), 500, metav1.StatusReasonInternalError,
		"admission: handler panicked: runtime error: index out of range [3] with length 1")
	if e := logs.all(); len(e) != 1 || e[0].level != -1 {
		t.Errorf("logged %+v, want the panic", e)
	}
}
