package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/admission"
)

// fuzzDefault sets a few defaults, at several depths.
func fuzzDefault(_ context.Context, d *appsv1.Deployment) error {
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = ptr.To[int32](1)
	}
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels["example.com/defaulted"] = "true"
	pod := &d.Spec.Template.Spec
	for i := range pod.Containers {
		if pod.Containers[i].ImagePullPolicy == "" {
			pod.Containers[i].ImagePullPolicy = corev1.PullIfNotPresent
		}
	}
	if len(pod.Containers) == 0 {
		pod.Containers = append(pod.Containers, corev1.Container{Name: "main", Image: "busybox"})
	}
	return nil
}

// FuzzReview checks that any body gets a 400 with a message or a
// well-formed review, from every kind of handler, and that a defaulter's
// patch, applied to the object as the API server does, gives the
// defaulted object.
func FuzzReview(f *testing.F) {
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect} {
		req := request(op)
		req.Object, req.OldObject = raw(f, deployment("web", 2)), raw(f, deployment("web", 1))
		f.Add(review(f, req))
		req.Object = raw(f, sent)
		f.Add(review(f, req))
	}
	req := request(admissionv1.Create)
	req.Object = raw(f, `{"spec":{"replicas":"x"}}`)
	f.Add(review(f, req))
	f.Add(bytes.Replace(review(f, request(admissionv1.Create)), []byte("/v1"), []byte("/v1beta1"), 1))
	for _, body := range []string{``, `{}`, `null`, `[]`, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}`} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v := &recordingValidator{}
		handlers := map[string]http.Handler{
			"raw":       admission.NewHandler(allow),
			"validator": admission.NewValidator[*appsv1.Deployment](v),
			"defaulter": admission.NewDefaulter[*appsv1.Deployment](defaultFunc(fuzzDefault)),
		}
		for name, h := range handlers {
			rec := post(h, body)
			if rec.Code == http.StatusBadRequest {
				if !strings.HasPrefix(rec.Body.String(), "admission: ") {
					t.Fatalf("%s: 400 with %q", name, rec.Body)
				}
				continue
			}
			var in admissionv1.AdmissionReview
			if err := utiljson.Unmarshal(body, &in); err != nil || in.Request == nil {
				t.Fatalf("%s: answered %d %q to %q", name, rec.Code, rec.Body, body)
			}
			resp := responseOf(t, rec, in.Request.UID)
			if !resp.Allowed && resp.Result == nil {
				t.Fatalf("%s: a denial without a result", name)
			}
			if resp.Patch != nil {
				checkDefaulted(t, in.Request.Object.Raw, resp.Patch)
			}
		}
		for _, c := range v.calls {
			checkObjects(t, c)
		}
	})
}

// checkObjects checks that a validator got the objects its request's raw
// ones decode to.
func checkObjects(t *testing.T, c call) {
	for _, o := range []struct {
		got *appsv1.Deployment
		raw []byte
	}{{c.obj, c.req.Object.Raw}, {c.old, c.req.OldObject.Raw}} {
		if c.method == "delete" && o.got == c.obj {
			o.raw = c.req.OldObject.Raw
		}
		if o.got == nil {
			continue
		}
		var want appsv1.Deployment
		if err := utiljson.Unmarshal(o.raw, &want); err != nil {
			t.Fatalf("%s got %+v from %q, which does not decode: %v", c.method, o.got, o.raw, err)
		}
		if g, w := marshal(t, o.got), marshal(t, &want); !bytes.Equal(g, w) {
			t.Fatalf("%s got\n%s\nfrom %s", c.method, g, o.raw)
		}
	}
}

// checkDefaulted checks that applying patch to obj and decoding the
// result gives what fuzzDefault makes of obj.
func checkDefaulted(t *testing.T, obj, patch []byte) {
	var want appsv1.Deployment
	if err := utiljson.Unmarshal(obj, &want); err != nil {
		t.Fatalf("patch %s for an object that does not decode: %v", patch, err)
	}
	if err := fuzzDefault(context.Background(), &want); err != nil {
		t.Fatal(err)
	}
	var got appsv1.Deployment
	if err := utiljson.Unmarshal(applyPatch(t, obj, patch), &got); err != nil {
		t.Fatalf("patched object does not decode: %v", err)
	}
	if g, w := marshal(t, &got), marshal(t, &want); !bytes.Equal(g, w) {
		t.Fatalf("patch %s on %s gave\n%s\nwant\n%s", patch, obj, g, w)
	}
	var ops []map[string]json.RawMessage
	if err := json.Unmarshal(patch, &ops); err != nil || len(ops) == 0 {
		t.Fatalf("patch %s: %v", patch, err)
	}
}

// FuzzDefaulter checks, for any object in a CREATE, that the defaulter's
// patch applied to it gives what Default makes of it, and that a patch
// comes only with a change.
func FuzzDefaulter(f *testing.F) {
	for _, obj := range []string{sent, seedAPIServerDeployment, `{}`, `{"metadata":null,"spec":{"template":{"spec":{"containers":[null]}}}}`,
		`{"metadata":{"labels":{"example.com/defaulted":"true"}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"c","imagePullPolicy":"Always"}]}}}}`} {
		f.Add([]byte(obj))
	}
	h := admission.NewDefaulter[*appsv1.Deployment](defaultFunc(fuzzDefault))
	f.Fuzz(func(t *testing.T, obj []byte) {
		req := request(admissionv1.Create)
		req.Object.Raw = obj
		body, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: &req})
		if err != nil {
			return // not JSON: the API server sends none such
		}
		rec := post(h, body)
		resp := responseOf(t, rec, req.UID)
		var in admissionv1.AdmissionReview
		if err := utiljson.Unmarshal(body, &in); err != nil {
			t.Fatal(err)
		}
		switch {
		case !resp.Allowed && resp.Result.Code != http.StatusBadRequest:
			t.Fatalf("denied %+v", resp.Result)
		case resp.Patch != nil:
			checkDefaulted(t, in.Request.Object.Raw, resp.Patch)
		case resp.Allowed:
			var d appsv1.Deployment
			if err := utiljson.Unmarshal(in.Request.Object.Raw, &d); err != nil {
				t.Fatal(err)
			}
			before := marshal(t, &d)
			if fuzzDefault(context.Background(), &d); !bytes.Equal(before, marshal(t, &d)) {
				t.Fatalf("no patch, but Default changes %s", in.Request.Object.Raw)
			}
		}
	})
}

// seedAPIServerDeployment is a Deployment as an API server sends it on an
// update, defaults, status and managed fields included.
const seedAPIServerDeployment = `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"shop","uid":"0d9e2a4c-6b1f-4c1e-9d1a-2b3c4d5e6f70","resourceVersion":"1234","generation":2,"creationTimestamp":"2026-11-24T20:00:00Z","labels":{"app":"web"},"annotations":{"deployment.kubernetes.io/revision":"1"},` +
	`"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"apps/v1","time":"2026-11-24T20:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}}}}}]},` +
	`"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27","resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},` +
	`"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600},` +
	`"status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2,"conditions":[{"type":"Available","status":"True","lastUpdateTime":"2026-11-24T20:00:05Z","lastTransitionTime":"2026-11-24T20:00:05Z","reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."}]}}`
