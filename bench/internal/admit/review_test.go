package admit

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestCases(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != len(Mix) {
		t.Fatalf("%d cases, Mix has %d", len(cases), len(Mix))
	}
	want := map[string][2]int{ // allowed (1 or 0), warnings
		"CREATE allowed": {1, 0}, "CREATE warned": {1, 1}, "CREATE denied": {0, 0},
		"UPDATE allowed": {1, 0}, "UPDATE warned": {1, 1}, "UPDATE denied": {0, 0},
	}
	for _, c := range cases {
		w, ok := want[c.Name]
		if !ok || c.Allowed != (w[0] == 1) || c.Warnings != w[1] {
			t.Errorf("%s: allowed %v, %d warnings; want %v", c.Name, c.Allowed, c.Warnings, w)
		}
		uid := UID(7, 42)
		var rev admissionv1.AdmissionReview
		if err := json.Unmarshal(c.Body(uid), &rev); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		r := rev.Request
		if string(r.UID) != uid || r.Operation != c.Operation || r.Kind.Kind != "Deployment" || len(r.Object.Raw) < 3000 {
			t.Errorf("%s: uid %s, operation %s, kind %s, object of %d bytes", c.Name, r.UID, r.Operation, r.Kind.Kind, len(r.Object.Raw))
		}
		if hasOld := len(r.OldObject.Raw) > 0; hasOld != (c.Operation == admissionv1.Update) {
			t.Errorf("%s: oldObject present %v", c.Name, hasOld)
		}
		if !bytes.Contains(c.Body(uid), []byte(`"managedFields"`)) {
			t.Errorf("%s: no managedFields in the object", c.Name)
		}
	}
}

func TestUID(t *testing.T) {
	if u := UID(0xffffffff, 1<<40); len(u) != UIDLen {
		t.Errorf("UID %q: length %d, want %d", u, len(u), UIDLen)
	}
	if UID(1, 2) == UID(1, 3) || UID(1, 2) == UID(2, 2) {
		t.Error("UIDs of different requests are equal")
	}
}

func TestSchedule(t *testing.T) {
	s := Schedule()
	counts := make([]int, len(Mix))
	for _, i := range s {
		counts[i]++
	}
	for i, n := range Mix {
		if counts[i] != n {
			t.Errorf("case %d: %d times in the schedule, Mix says %d", i, counts[i], n)
		}
	}
}

func TestCheck(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	warned, denied := cases[1], cases[2]
	uid := UID(1, 1)
	answer := func(mod func(*admissionv1.AdmissionResponse)) []byte {
		r := &admissionv1.AdmissionResponse{UID: types.UID(uid), Allowed: true, Warnings: []string{"w"}}
		mod(r)
		b, _ := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: r})
		return b
	}
	same := func(*admissionv1.AdmissionResponse) {}
	if err := warned.Check(uid, http.StatusOK, answer(same)); err != nil {
		t.Errorf("the right answer: %v", err)
	}
	deny := func(r *admissionv1.AdmissionResponse) {
		r.Allowed, r.Warnings, r.Result = false, nil, &metav1.Status{Code: http.StatusForbidden}
	}
	if err := denied.Check(uid, http.StatusOK, answer(deny)); err != nil {
		t.Errorf("the right denial: %v", err)
	}
	for name, tc := range map[string]struct {
		c    Case
		code int
		body []byte
	}{
		"HTTP 500":      {warned, http.StatusInternalServerError, answer(same)},
		"not JSON":      {warned, http.StatusOK, []byte("nope")},
		"other uid":     {warned, http.StatusOK, answer(func(r *admissionv1.AdmissionResponse) { r.UID = "x" })},
		"denied":        {warned, http.StatusOK, answer(deny)},
		"no warning":    {warned, http.StatusOK, answer(func(r *admissionv1.AdmissionResponse) { r.Warnings = nil })},
		"allowed":       {denied, http.StatusOK, answer(same)},
		"denied by 400": {denied, http.StatusOK, answer(func(r *admissionv1.AdmissionResponse) { deny(r); r.Result.Code = 400 })},
		"no response":   {warned, http.StatusOK, []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`)},
	} {
		if err := tc.c.Check(uid, tc.code, tc.body); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), tc.c.Name) {
			t.Errorf("%s: error %q does not name the case", name, err)
		}
	}
}
