package admission

import (
	"encoding/json"
	"strconv"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

func TestEscape(t *testing.T) {
	for key, want := range map[string]string{
		"app": "app", "example.com/team": "example.com~1team", "a~b": "a~0b", "~1": "~01", "/~": "~1~0", "": "",
	} {
		if got := escape(key); got != want {
			t.Errorf("escape(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ from, to, patch string }{
		{`{"a":1}`, `{"a":1}`, ``},
		{`{"a":1,"b":{"c":[1,2]}}`, `{"b":{"c":[1,2]},"a":1}`, ``},
		{`{"a":1}`, `{"a":2}`, `[{"op":"replace","path":"/a","value":2}]`},
		{`{"a":1}`, `{"a":1.0}`, `[{"op":"replace","path":"/a","value":1.0}]`},
		{`{"a":1}`, `{}`, `[{"op":"remove","path":"/a"}]`},
		{`{}`, `{"a":null}`, `[{"op":"add","path":"/a","value":null}]`},
		{`{"a":null}`, `{"a":{}}`, `[{"op":"replace","path":"/a","value":{}}]`},
		{`{"a":{"b":"x"}}`, `{"a":["x"]}`, `[{"op":"replace","path":"/a","value":["x"]}]`},
		{`{"a":[1,{"b":2,"c":3}]}`, `{"a":[1,{"b":4}]}`,
			`[{"op":"replace","path":"/a/1/b","value":4},{"op":"remove","path":"/a/1/c"}]`},
		{`{"a":[1,2]}`, `{"a":[1,2,3]}`, `[{"op":"replace","path":"/a","value":[1,2,3]}]`},
		{`{"a":[1,2]}`, `{"a":[]}`, `[{"op":"replace","path":"/a","value":[]}]`},
		{`{"":{"a/b":{"~":1}}}`, `{"":{"a/b":{"~":2}}}`, `[{"op":"replace","path":"//a~1b/~0","value":2}]`},
		{`{"n":9223372036854775807}`, `{"n":9223372036854775806}`,
			`[{"op":"replace","path":"/n","value":9223372036854775806}]`},
		{`{"s":"a"}`, `{"s":"<\u00e9>\n"}`, `[{"op":"replace","path":"/s","value":"<é>\n"}]`},
		{`{"b":true}`, `{"b":false}`, `[{"op":"replace","path":"/b","value":false}]`},
		{`[1]`, `{"a":1}`, `[{"op":"replace","path":"","value":{"a":1}}]`},
	} {
		from, to := mustDecode(t, tc.from), mustDecode(t, tc.to)
		patch, err := encodePatch(diff(from, to))
		if err != nil {
			t.Fatal(err)
		}
		if tc.patch == "" && len(diff(from, to)) == 0 {
			continue
		}
		if string(patch) != tc.patch {
			t.Errorf("diff(%s, %s) = %s, want %s", tc.from, tc.to, patch, tc.patch)
		}
	}
}

// TestDiffWithBase checks the filter of NewDefaulter: an operation is
// kept only where the base and the target differ.
func TestDiffWithBase(t *testing.T) {
	for _, tc := range []struct{ from, base, to, patch string }{
		// Only the round trip changed things: nothing to patch.
		{`{"unknown":1,"zero":false}`, `{"ts":null}`, `{"ts":null}`, ``},
		// The target changed a field the round trip added.
		{`{}`, `{"ts":null}`, `{"ts":"now"}`, `[{"op":"add","path":"/ts","value":"now"}]`},
		// The target removed a field that survived the round trip.
		{`{"a":1,"u":2}`, `{"a":1}`, `{}`, `[{"op":"remove","path":"/a"}]`},
		// Unknown fields inside a changed object are kept.
		{`{"o":{"u":1,"k":1}}`, `{"o":{"k":1}}`, `{"o":{"k":2}}`, `[{"op":"replace","path":"/o/k","value":2}]`},
		// And inside same-length arrays.
		{`{"l":[{"u":1,"k":1}]}`, `{"l":[{"k":1}]}`, `{"l":[{"k":2}]}`, `[{"op":"replace","path":"/l/0/k","value":2}]`},
		// A grown array is replaced whole, losing them.
		{`{"l":[{"u":1}]}`, `{"l":[{}]}`, `{"l":[{},{}]}`, `[{"op":"replace","path":"/l","value":[{},{}]}]`},
		// Where the base is not a container, children are absent from it.
		{`{"o":{"a":1}}`, `{"o":null}`, `{"o":{"a":2}}`, `[{"op":"replace","path":"/o/a","value":2}]`},
	} {
		d := differ{withBase: true}
		d.walk("", mustDecode(t, tc.from), mustDecode(t, tc.to), mustDecode(t, tc.base), true)
		var patch []byte
		if len(d.ops) > 0 {
			var err error
			if patch, err = encodePatch(d.ops); err != nil {
				t.Fatal(err)
			}
		}
		if string(patch) != tc.patch {
			t.Errorf("diff(%s, %s) over %s = %s, want %s", tc.from, tc.to, tc.base, patch, tc.patch)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	for _, bad := range []string{``, `{`, `{} {}`, `{}x`, `nul`} {
		if _, err := decodeJSON([]byte(bad)); err == nil {
			t.Errorf("decodeJSON(%q) did not fail", bad)
		}
	}
	v, err := decodeJSON([]byte(` {"n": 18446744073709551617} `))
	if err != nil || v.(map[string]any)["n"] != json.Number("18446744073709551617") {
		t.Errorf("decodeJSON = %v, %v, want the number exact", v, err)
	}
}

func mustDecode(t testing.TB, doc string) any {
	t.Helper()
	v, err := decodeJSON([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return v
}

// FuzzJSONPatch checks that the patch diff makes from one JSON object to
// another turns the first into the second when applied by the JSON patch
// library the API server uses.
func FuzzJSONPatch(f *testing.F) {
	for _, seed := range jsonPatchSeeds {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, from, to []byte) {
		a, err := decodeJSON(from)
		if _, ok := a.(map[string]any); err != nil || !ok {
			return // the API server's objects are JSON objects
		}
		b, err := decodeJSON(to)
		if _, ok := b.(map[string]any); err != nil || !ok {
			// Random bytes are rarely an object: let them drive changes
			// to the first document instead.
			m := &mutator{choices: to}
			b = m.mutate(mustDecode(t, string(from)))
			if to, err = json.Marshal(b); err != nil {
				t.Fatal(err)
			}
			if _, ok := b.(map[string]any); !ok {
				return
			}
		}
		ops := diff(a, b)
		if len(ops) == 0 {
			if !equal(a, b) {
				t.Fatalf("no operations from %s to %s", from, to)
			}
			return
		}
		patch, err := encodePatch(ops)
		if err != nil {
			t.Fatal(err)
		}
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			t.Fatalf("patch %s: %v", patch, err)
		}
		out, err := p.Apply(from)
		if err != nil {
			t.Fatalf("applying %s to %s: %v", patch, from, err)
		}
		if got := mustDecode(t, string(out)); !equal(got, b) {
			t.Fatalf("applying %s to %s gave %s, want %s", patch, from, out, to)
		}
	})
}

// mutator changes a decoded document as its choices say, one byte per
// decision, and leaves the rest alone once they run out.
type mutator struct{ choices []byte }

func (m *mutator) next() byte {
	if len(m.choices) == 0 {
		return 0
	}
	c := m.choices[0]
	m.choices = m.choices[1:]
	return c
}

func (m *mutator) mutate(v any) any {
	switch c := m.next(); c % 8 {
	case 1:
		return json.Number(strconv.Itoa(int(m.next())))
	case 2:
		return string(rune('a' + m.next()%4))
	case 3:
		return nil
	case 4:
		return map[string]any{string([]byte{m.next() % 4, '/', '~'}[:1+m.next()%3]): m.mutate(nil)}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			switch m.next() % 4 {
			case 1:
				delete(v, k)
			case 2:
				v[k] = m.mutate(v[k])
			}
		}
		if m.next()%4 == 1 {
			v[string(rune('a'+m.next()%4))+"/~"[:m.next()%3]] = m.mutate(nil)
		}
	case []any:
		for i := range v {
			if m.next()%3 == 1 {
				v[i] = m.mutate(v[i])
			}
		}
		switch m.next() % 4 {
		case 1:
			return append(v, m.mutate(nil))
		case 2:
			if len(v) > 0 {
				return v[:len(v)-1]
			}
		}
	}
	return v
}

var jsonPatchSeeds = [][2]string{
	{`{}`, `{"a":1}`},
	{`{"a":[1,2,3],"b":{"c":"d"}}`, `{"a":[1,2],"b":{"c":"e","f":null}}`},
	{`{"a/b":{"~c":[{"x":1}]}}`, `{"a/b":{"~c":[{"x":2,"y":[true]}]}}`},
	{`{"n":9223372036854775807,"f":1.5e300}`, `{"n":9223372036854775808,"f":-0}`},
	{`{"":{"":""}}`, `{"":{"":"x","~":"/"}}`},
	{seedDeployment, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"creationTimestamp":null,"labels":{"app":"web","example.com/team":"shop"},"name":"web","namespace":"shop"},` +
		`"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"strategy":{},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},` +
		`"spec":{"containers":[{"image":"nginx:1.27","name":"web","resources":{}}]}}},"status":{}}`},
	{seedDeployment, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},` +
		`"spec":{"template":{"spec":{"containers":[{"image":"nginx","name":"web"},{"image":"envoy","name":"proxy"}]}}}}`},
	{seedPod, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"a":"<&>"}},"spec":{"containers":[{"name":"c","image":"busybox","args":["sleep","3600"]}],"tolerations":[]}}`},
	{seedPod, seedDeployment},
}

const (
	seedDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":{"app":"web"}},` +
		`"spec":{"futureField":{"big":9223372036854775807},"paused":false,"selector":{"matchLabels":{"app":"web"}},` +
		`"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx","futureContainerField":true}]}}}}`
	seedPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"1f2e","resourceVersion":"42"},` +
		`"spec":{"containers":[{"name":"c","image":"busybox","args":["sleep","3600"],"resources":{"limits":{"cpu":"500m"}}}],` +
		`"tolerations":[{"key":"k","operator":"Exists"}]},"status":{"phase":"Running"}}`
)
