package client

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func mustObject(t *testing.T, s string) map[string]any {
	t.Helper()
	m, ok := decodeObject([]byte(s), false)
	if !ok {
		t.Fatalf("not a JSON object: %s", s)
	}
	return m
}

// withoutNulls returns v with its null-valued object members removed, at
// every depth (arrays' objects included): the document a merge patch
// means, where null is absence.
func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = withoutNulls(e)
		}
		return out
	}
	return v
}

// mergePatch gives the smallest merge patch: the members that changed,
// nested objects as patches of their own members, lists whole, null for
// a member removed and nothing for one that is null after and absent
// before.
func TestMergePatch(t *testing.T) {
	for _, tc := range []struct{ name, before, after, want string }{
		{"equal", `{"a":1,"m":{"b":"x","l":[1,{"c":null}]},"n":null}`, `{"a":1,"m":{"b":"x","l":[1,{"c":null}]},"n":null}`, `{}`},
		{"both empty", `{}`, `{}`, `{}`},
		{"changed scalar", `{"a":1,"b":"x"}`, `{"a":2,"b":"x"}`, `{"a":2}`},
		{"changed type", `{"a":1,"b":{"c":1},"d":"x"}`, `{"a":"1","b":[1],"d":{"e":1}}`, `{"a":"1","b":[1],"d":{"e":1}}`},
		{"added key", `{"a":1}`, `{"a":1,"b":{"c":[true]}}`, `{"b":{"c":[true]}}`},
		{"removed key", `{"a":1,"b":{"c":1}}`, `{"a":1}`, `{"b":null}`},
		{"set to null", `{"a":1}`, `{"a":null}`, `{"a":null}`},
		{"null to a value", `{"a":null}`, `{"a":0}`, `{"a":0}`},
		{"null after, absent before", `{"a":1}`, `{"a":1,"b":null}`, `{}`},
		{"nested object changed", `{"m":{"x":1,"y":2,"z":{"p":1}},"o":3}`, `{"m":{"x":1,"y":5,"z":{"p":1}},"o":3}`, `{"m":{"y":5}}`},
		{"nested key removed", `{"m":{"x":1,"y":2}}`, `{"m":{"x":1}}`, `{"m":{"y":null}}`},
		{"nested object emptied", `{"m":{"x":1}}`, `{"m":{}}`, `{"m":{"x":null}}`},
		{"nested null after, absent before", `{"m":{"x":1}}`, `{"m":{"x":1,"y":null}}`, `{}`},
		{"list changed", `{"l":[1,2,3],"k":[4]}`, `{"l":[1,3],"k":[4]}`, `{"l":[1,3]}`},
		{"list of objects changed", `{"l":[{"a":1,"b":2}]}`, `{"l":[{"a":1,"b":3}]}`, `{"l":[{"a":1,"b":3}]}`},
		{"empty object to a value", `{"m":{}}`, `{"m":{"a":1}}`, `{"m":{"a":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, after := mustObject(t, tc.before), mustObject(t, tc.after)
			got := mergePatch(before, after)
			if want := mustObject(t, tc.want); !reflect.DeepEqual(got, want) {
				gotJSON, _ := json.Marshal(got)
				t.Fatalf("mergePatch(%s, %s) = %s; want %s", tc.before, tc.after, gotJSON, tc.want)
			}
			if !reflect.DeepEqual(before, mustObject(t, tc.before)) || !reflect.DeepEqual(after, mustObject(t, tc.after)) {
				t.Fatalf("mergePatch changed its arguments: %v, %v", before, after)
			}
		})
	}
}

// fieldsOf keeps integers as the object has them, past 2^53 too, so a
// patch between two objects writes the value mutate set and sees a change
// in the low digits of a large integer (an int64 ID in a custom
// resource's spec, say); JSON numbers decoded as float64 would round it.
func TestFieldsOfKeepsLargeIntegers(t *testing.T) {
	const big = 1 << 53 // the first integer past which float64 skips some
	for _, tc := range []struct {
		before, after int64
		want          string
	}{
		{big + 1, big + 3, `{"spec":{"id":9007199254740995}}`},
		{big, big + 1, `{"spec":{"id":9007199254740993}}`},
		{big + 1, big + 1, `{}`},
		{math.MaxInt64 - 1, math.MaxInt64, `{"spec":{"id":9223372036854775807}}`},
	} {
		before, err := fieldsOf(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Thing", "spec": map[string]any{"id": tc.before, "n": 1.5}}})
		if err != nil {
			t.Fatal(err)
		}
		after, err := fieldsOf(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Thing", "spec": map[string]any{"id": tc.after, "n": 1.5}}})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(mergePatch(before, after)); string(got) != tc.want {
			t.Errorf("patch from id %d to %d = %s; want %s", tc.before, tc.after, got, tc.want)
		}
	}
}

// locked sets metadata.resourceVersion in the encoded patch, beside the
// metadata the patch already changes, and over a resourceVersion it sets.
func TestLocked(t *testing.T) {
	for _, tc := range []struct{ patch, rv, want string }{
		{`{}`, "7", `{"metadata":{"resourceVersion":"7"}}`},
		{`{"spec":{"a":1}}`, "42", `{"spec":{"a":1},"metadata":{"resourceVersion":"42"}}`},
		{`{"metadata":{"labels":{"app":null}},"data":null}`, "5", `{"metadata":{"labels":{"app":null},"resourceVersion":"5"},"data":null}`},
		{`{"metadata":{"resourceVersion":"1"}}`, "2", `{"metadata":{"resourceVersion":"2"}}`},
	} {
		got, ok := decodeObject(locked(mustObject(t, tc.patch), tc.rv), false)
		if want := mustObject(t, tc.want); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("locked(%s, %q) = %v; want %s", tc.patch, tc.rv, got, tc.want)
		}
	}
}

// Applied to before (RFC 7386, by the evanphx/json-patch package the API
// server uses), mergePatch's patch gives after, null members aside (a
// merge patch cannot set a member to null: null removes it), and the same
// document as the patch jsonpatch.CreateMergePatch makes; an empty patch
// means the documents are equal. mergePatch leaves its arguments as they
// were. It holds for documents decoded with numbers as float64 and as
// json.Number (fieldsOf's form), where the result is after exactly.
func FuzzMergePatch(f *testing.F) {
	for _, seed := range [][2]string{
		{`{}`, `{}`},
		{`{"a":1}`, `{"a":2}`},
		{`{"a":1,"b":2}`, `{"a":1}`},
		{`{"a":1}`, `{"a":1,"b":null}`},
		{`{"a":null}`, `{}`},
		{`{"a":1,"b":{"c":1}}`, `{"a":null,"b":null}`},
		{`{"a":null,"b":1}`, `{"a":null,"b":2}`},
		{`{"m":{"x":1,"y":{"z":[1,2]}}}`, `{"m":{"x":1,"y":{"z":[2,1]}}}`},
		{`{"m":{"x":1}}`, `{"m":{}}`},
		{`{"m":{"x":null}}`, `{"m":{"x":null,"y":1}}`},
		{`{"m":1}`, `{"m":{"x":null,"y":{"z":null}}}`},
		{`{"m":{"x":1}}`, `{"m":[{"x":null}]}`},
		{`{"l":[{"a":1}]}`, `{"l":[{"a":1},{"b":null}]}`},
		{`{"s":"é","n":1.5e300,"b":true}`, `{"s":"\u00e9","n":-0,"b":false}`},
		{`{"n":1.0,"i":9007199254740993}`, `{"n":1,"i":9007199254740995}`},
		{`{"metadata":{"name":"x","labels":{"a":"b"}},"spec":{"replicas":1}}`,
			`{"metadata":{"name":"x","labels":{"a":"c","d":"e"}},"spec":{"replicas":3,"paused":null}}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, beforeJSON, afterJSON string) {
		// Objects only, and ones CreateMergePatch reads (numbers within
		// float64's range).
		if _, ok := decodeObject([]byte(beforeJSON), false); !ok {
			t.Skip("before is not a JSON object")
		}
		if _, ok := decodeObject([]byte(afterJSON), false); !ok {
			t.Skip("after is not a JSON object")
		}
		for _, numbers := range []bool{false, true} {
			checkMergePatch(t, []byte(beforeJSON), []byte(afterJSON), numbers)
		}
	})
}

// decodeObject decodes a JSON object, its numbers as float64 or, with
// numbers, json.Number; false for anything else.
func decodeObject(data []byte, numbers bool) (map[string]any, bool) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	if numbers {
		dec.UseNumber()
	}
	if err := dec.Decode(&m); err != nil || m == nil || dec.More() { // "null" decodes to a nil map
		return nil, false
	}
	return m, true
}

// checkMergePatch checks FuzzMergePatch's properties for one pair of
// documents, decoded with numbers as float64 or json.Number.
func checkMergePatch(t *testing.T, beforeJSON, afterJSON []byte, numbers bool) {
	t.Helper()
	before, _ := decodeObject(beforeJSON, numbers)
	after, _ := decodeObject(afterJSON, numbers)
	// The canonical forms, which the checks below read.
	beforeData, err := json.Marshal(before)
	if err != nil {
		t.Fatal(err)
	}
	afterData, err := json.Marshal(after)
	if err != nil {
		t.Fatal(err)
	}

	patch := mergePatch(before, after)

	if b, _ := json.Marshal(before); string(b) != string(beforeData) {
		t.Fatalf("mergePatch changed before: %s, was %s", b, beforeData)
	}
	if a, _ := json.Marshal(after); string(a) != string(afterData) {
		t.Fatalf("mergePatch changed after: %s, was %s", a, afterData)
	}
	patchData, err := json.Marshal(patch)
	if err != nil {
		t.Fatalf("encoding the patch: %v", err)
	}
	applied, err := jsonpatch.MergePatch(beforeData, patchData)
	if err != nil {
		t.Fatalf("applying %s to %s: %v", patchData, beforeData, err)
	}
	got, ok := decodeObject(applied, numbers)
	if !ok {
		t.Fatalf("applying %s to %s gave %s, not an object", patchData, beforeData, applied)
	}
	if !reflect.DeepEqual(withoutNulls(got), withoutNulls(after)) {
		t.Fatalf("numbers as json.Number %v\nbefore %s\nafter %s\npatch %s\napplied %s: not after",
			numbers, beforeData, afterData, patchData, applied)
	}
	if len(patch) == 0 && !reflect.DeepEqual(withoutNulls(before), withoutNulls(after)) {
		t.Fatalf("numbers as json.Number %v: empty patch from %s to %s", numbers, beforeData, afterData)
	}

	// CreateMergePatch reads numbers as float64: compare as it does.
	theirs, err := jsonpatch.CreateMergePatch(beforeData, afterData)
	if err != nil {
		t.Fatalf("CreateMergePatch(%s, %s): %v", beforeData, afterData, err)
	}
	theirsApplied, err := jsonpatch.MergePatch(beforeData, theirs)
	if err != nil {
		t.Fatalf("applying CreateMergePatch's %s to %s: %v", theirs, beforeData, err)
	}
	ours, _ := decodeObject(applied, false)
	want, ok := decodeObject(theirsApplied, false)
	if !ok || !reflect.DeepEqual(ours, want) {
		t.Fatalf("numbers as json.Number %v\nbefore %s\nafter %s\npatch %s applied gives %s\nCreateMergePatch's %s applied gives %s",
			numbers, beforeData, afterData, patchData, applied, theirs, theirsApplied)
	}
}
