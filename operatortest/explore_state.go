package operatortest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// endState is what a run left behind: every object written in it, read
// from the API server once the run settled, normalized (see normalize),
// by kind and normalized name. Objects of one generateName share a key.
type endState map[string][]any

// absent stands for an object that was written in the run and is gone.
const absent = "(absent)"

// readEnd reads every object the run wrote and normalizes it.
func readEnd(ctx context.Context, s *runState, namespace string, ignored []string) (endState, map[string]map[string]any, error) {
	names := map[string]string{namespace: "<namespace>"}
	seen := map[string]target{}
	for _, w := range s.log() {
		t := w.target
		t.sub = ""
		if t.name == "" {
			continue
		}
		if w.generateName != "" {
			names[t.name] = w.generateName + "*"
		}
		seen[t.objectPath()] = t
	}
	raw := map[string]map[string]any{}
	uids := map[string]bool{}
	for path := range seen {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.host+path, nil)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Accept", "application/json")
		obj, err := do(s.interloper, req)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", path, err)
		}
		raw[path] = obj
		if uid, ok := metaString(obj, "uid"); ok {
			uids[uid] = true
		}
	}
	n := &normalizer{ignored: ignored, uids: uids}
	pairs := make([]string, 0, 2*len(names))
	for from, to := range names {
		pairs = append(pairs, from, to)
	}
	n.names = strings.NewReplacer(pairs...)
	st := endState{}
	for path, t := range seen {
		key := t.kind() + " " + n.names.Replace(t.namespace) + "/" + n.names.Replace(t.name)
		var v any = absent
		if obj := raw[path]; obj != nil {
			v = n.object(obj)
		}
		st[key] = append(st[key], v)
	}
	for k := range st {
		sort.Slice(st[k], func(i, j int) bool { return jsonString(st[k][i]) < jsonString(st[k][j]) })
	}
	return st, raw, nil
}

// normalizer takes out of an object what differs between runs of the same
// test without meaning anything: identities, versions, times, the names
// the server generated, the run's namespace, and what the user ignores.
type normalizer struct {
	names   *strings.Replacer
	uids    map[string]bool
	ignored []string
}

func (n *normalizer) object(obj map[string]any) any {
	obj = runtime.DeepCopyJSON(obj) // the raw object is judged too
	if md, ok := obj["metadata"].(map[string]any); ok {
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "selfLink", "generation", "deletionGracePeriodSeconds"} {
			delete(md, f)
		}
		if _, ok := md["deletionTimestamp"]; ok {
			md["deletionTimestamp"] = "<set>"
		}
		if a, ok := md["annotations"].(map[string]any); ok {
			delete(a, otherWriter)
			if len(a) == 0 {
				delete(md, "annotations")
			}
		}
	}
	for _, p := range n.ignored {
		removePointer(obj, p)
	}
	return n.value(obj)
}

func (n *normalizer) value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[n.names.Replace(k)] = n.value(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = n.value(e)
		}
		return out
	case string:
		if n.uids[v] {
			return "<uid>"
		}
		if _, err := time.Parse(time.RFC3339, v); err == nil {
			return "<time>"
		}
		return n.names.Replace(v)
	}
	return v
}

// removePointer deletes the field a JSON pointer names, if it is there.
func removePointer(obj map[string]any, pointer string) {
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	var cur any = obj
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				delete(c, p)
				return
			}
			cur = c[p]
		case []any:
			idx, err := strconv.Atoi(p)
			if err != nil || idx < 0 || idx >= len(c) {
				return
			}
			if last {
				c[idx] = nil
				return
			}
			cur = c[idx]
		default:
			return
		}
	}
}

// diff lists how the end state got differs from ref, at most max lines,
// calling them what refName and gotName say ("in the unperturbed run",
// "here").
func diff(ref, got endState, max int, refName, gotName string) []string {
	keys := make([]string, 0, len(ref)+len(got))
	for k := range ref {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := ref[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		r, g := ref[k], got[k]
		switch {
		case r == nil:
			out = append(out, fmt.Sprintf("%s: not written %s; %s %s", k, refName, gotName, summary(g)))
		case g == nil:
			out = append(out, fmt.Sprintf("%s: %s %s; not written %s", k, summary(r), refName, gotName))
		case len(r) != len(g):
			out = append(out, fmt.Sprintf("%s: %d objects %s, %d %s", k, len(r), refName, len(g), gotName))
		default:
			for i := range r {
				valueDiff(k, "", r[i], g[i], refName, gotName, &out)
			}
		}
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("… and %d more differences", len(out)-max))
	}
	return out
}

func summary(v []any) string {
	if len(v) == 1 && v[0] == absent {
		return "absent"
	}
	return fmt.Sprintf("%d object(s)", len(v))
}

// valueDiff adds a line for each field where a and b differ, naming it by
// the object's key and a JSON pointer.
func valueDiff(key, ptr string, a, b any, aName, bName string, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			esc := strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			valueDiff(key, ptr+"/"+esc, am[k], bm[k], aName, bName, out)
		}
		return
	}
	if reflect.DeepEqual(a, b) {
		return
	}
	where := key
	if ptr != "" {
		where += " " + ptr
	}
	*out = append(*out, fmt.Sprintf("%s: %s %s, %s %s", where, show(a), aName, show(b), bName))
}

func show(v any) string {
	if v == nil {
		return "missing"
	}
	s := jsonString(v)
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// do sends req and decodes the JSON object it answers; a 404 is nil, nil.
func do(hc *http.Client, req *http.Request) (map[string]any, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status, strings.TrimSpace(string(body)))
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	return obj, nil
}

// metaString returns a string field of obj's metadata.
func metaString(obj map[string]any, field string) (string, bool) {
	md, _ := obj["metadata"].(map[string]any)
	s, ok := md[field].(string)
	return s, ok
}
