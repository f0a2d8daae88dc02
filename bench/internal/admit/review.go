package admit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Path is where both children serve the validator: the path
// controller-runtime's and steady's builders give a validator of
// apps/v1 Deployments.
const Path = "/validate-apps-v1-deployment"

// UIDLen is the length of a request's uid, as Case.Body wants it.
const UIDLen = 36

// placeholder is the uid in a Case's body, which Body overwrites.
const placeholder = "00000000-0000-0000-0000-000000000000"

// Case is one kind of admission request: its body, with a uid Body fills
// in, and the answer the logic gives it.
type Case struct {
	Name      string // e.g. "UPDATE allowed"
	Operation admissionv1.Operation
	Allowed   bool
	Warnings  int // warnings in an allowed answer
	body      []byte
	uidAt     int // offset of the uid in body
}

// Body returns the request's body with uid (UIDLen bytes) as the
// request's uid, in a new slice.
func (c *Case) Body(uid string) []byte {
	b := bytes.Clone(c.body)
	copy(b[c.uidAt:c.uidAt+UIDLen], uid)
	return b
}

// UID returns the uid of request n of run, UIDLen bytes.
func UID(run uint32, n uint64) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", run, n&0xffffffffffff)
}

// Check returns nil if resp, the HTTP answer with status code, is the
// answer to the request with uid that the logic gives.
func (c *Case) Check(uid string, code int, resp []byte) error {
	if code != http.StatusOK {
		return fmt.Errorf("%s: HTTP status %d: %.200s", c.Name, code, resp)
	}
	var rev admissionv1.AdmissionReview
	if err := json.Unmarshal(resp, &rev); err != nil {
		return fmt.Errorf("%s: decoding the answer: %w", c.Name, err)
	}
	r := rev.Response
	switch {
	case rev.APIVersion != "admission.k8s.io/v1" || rev.Kind != "AdmissionReview":
		return fmt.Errorf("%s: answered a %s %s", c.Name, rev.APIVersion, rev.Kind)
	case r == nil:
		return fmt.Errorf("%s: no response in the review", c.Name)
	case string(r.UID) != uid:
		return fmt.Errorf("%s: uid %q, want %q", c.Name, r.UID, uid)
	case r.Allowed != c.Allowed:
		return fmt.Errorf("%s: allowed %v, want %v (%+v)", c.Name, r.Allowed, c.Allowed, r.Result)
	case !c.Allowed && (r.Result == nil || r.Result.Code != http.StatusForbidden):
		return fmt.Errorf("%s: denied with %+v, want code 403", c.Name, r.Result)
	case len(r.Warnings) != c.Warnings:
		return fmt.Errorf("%s: warnings %q, want %d", c.Name, r.Warnings, c.Warnings)
	}
	return nil
}

// Cases returns the requests the load sends: CREATE and UPDATE of the
// fixture Deployment, allowed, allowed with a warning (NameLabel removed)
// and denied (too many replicas); an UPDATE carries the stored object as
// oldObject and a new image in object.
func Cases() ([]Case, error) {
	var cases []Case
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		for _, variant := range []string{"allowed", "warned", "denied"} {
			c, err := newCase(op, variant)
			if err != nil {
				return nil, err
			}
			cases = append(cases, c)
		}
	}
	return cases, nil
}

// Mix is how often each of Cases's requests occurs in 20: a quarter are
// CREATEs, 15% are warned about, 10% are denied.
var Mix = []int{3, 1, 1, 12, 2, 1}

// Schedule returns indexes into Cases in the proportions of Mix, in a
// fixed shuffled order; request n is Cases()[s[n%len(s)]].
func Schedule() []int {
	var s []int
	for i, n := range Mix {
		for range n {
			s = append(s, i)
		}
	}
	rand.New(rand.NewPCG(40, 1)).Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

func newCase(op admissionv1.Operation, variant string) (Case, error) {
	stored, err := Deployment()
	if err != nil {
		return Case{}, err
	}
	obj, err := Deployment()
	if err != nil {
		return Case{}, err
	}
	var old *appsv1.Deployment
	if op == admissionv1.Create {
		// As the API server admits a create: no resource version, status or
		// controller-manager fields yet.
		obj.ResourceVersion, obj.Generation, obj.Status = "", 1, appsv1.DeploymentStatus{}
		obj.Annotations, obj.ManagedFields = nil, obj.ManagedFields[:1]
	} else {
		old = stored
		obj.Generation++
		obj.Spec.Template.Spec.Containers[0].Image = "registry.example.com/shop/checkout:v1.43.0"
	}
	switch variant {
	case "warned":
		delete(obj.Labels, NameLabel)
	case "denied":
		r := int32(MaxReplicas + 50)
		obj.Spec.Replicas = &r
	}
	var warnings []string
	if op == admissionv1.Create {
		warnings, err = Validate(obj)
	} else {
		warnings, err = ValidateUpdate(old, obj)
	}
	c := Case{Name: string(op) + " " + variant, Operation: op, Allowed: err == nil, Warnings: len(warnings)}
	if c.body, err = review(op, obj, old); err != nil {
		return Case{}, fmt.Errorf("admit: %s: %w", c.Name, err)
	}
	c.uidAt = bytes.Index(c.body, []byte(placeholder))
	if c.uidAt < 0 || bytes.Count(c.body, []byte(placeholder)) != 1 {
		return Case{}, errors.New("admit: " + c.Name + ": the uid placeholder is not in the body exactly once")
	}
	return c, nil
}

// review encodes the AdmissionReview the API server sends for op on obj
// (old: the stored object, for UPDATE), with the placeholder uid.
func review(op admissionv1.Operation, obj, old *appsv1.Deployment) ([]byte, error) {
	gvk := metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gvr := metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	req := &admissionv1.AdmissionRequest{
		UID: placeholder, Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
		Name: obj.Name, Namespace: obj.Namespace, Operation: op,
		UserInfo: authnv1.UserInfo{
			Username: "system:serviceaccount:argocd:argocd-application-controller",
			UID:      "4b0c8a4e-5d2f-4f59-9a57-1f0e6c2d9b31",
			Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:argocd", "system:authenticated"},
			Extra: map[string]authnv1.ExtraValue{
				"authentication.kubernetes.io/credential-id": {"JTI=8f6a3c1e-2b7d-4e90-a1c4-5d6e7f8a9b0c"},
				"authentication.kubernetes.io/node-name":     {"worker-3"},
			},
		},
		Object: runtime.RawExtension{Raw: raw},
		DryRun: new(bool),
	}
	opts := map[string]string{"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "argocd-controller"}
	if op == admissionv1.Update {
		if req.OldObject.Raw, err = json.Marshal(old); err != nil {
			return nil, err
		}
		opts["kind"] = "UpdateOptions"
	}
	if req.Options.Raw, err = json.Marshal(opts); err != nil {
		return nil, err
	}
	return json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
}
