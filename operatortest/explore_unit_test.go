package operatortest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

func TestParsePath(t *testing.T) {
	for _, c := range []struct {
		path string
		want target
		ok   bool
	}{
		{"/api/v1/namespaces/ns/configmaps", target{version: "v1", resource: "configmaps", namespace: "ns"}, true},
		{"/api/v1/namespaces/ns/configmaps/p", target{version: "v1", resource: "configmaps", namespace: "ns", name: "p"}, true},
		{"/apis/example.com/v1/namespaces/ns/foos/p/status", target{group: "example.com", version: "v1", resource: "foos", namespace: "ns", name: "p", sub: "status"}, true},
		{"/api/v1/namespaces", target{version: "v1", resource: "namespaces"}, true},
		{"/api/v1/namespaces/ns", target{version: "v1", resource: "namespaces", name: "ns"}, true},
		{"/api/v1/namespaces/ns/finalize", target{version: "v1", resource: "namespaces", name: "ns", sub: "finalize"}, true},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles/r", target{group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles", name: "r"}, true},
		{"/healthz", target{}, false},
		{"/api/v1/namespaces/ns/configmaps/p/status/extra", target{}, false},
	} {
		got, ok := parsePath(c.path)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parsePath(%q) = %+v, %v; want %+v, %v", c.path, got, ok, c.want, c.ok)
		}
	}
	p := "/apis/example.com/v1/namespaces/ns/foos/p"
	if got, _ := parsePath(p + "/status"); got.objectPath() != p {
		t.Errorf("objectPath = %q, want %q", got.objectPath(), p)
	}
}

func TestIDsNameWritesStably(t *testing.T) {
	cm := target{version: "v1", resource: "configmaps", namespace: "ns-abcde", name: "p"}
	foo := target{group: "example.com", version: "v1", resource: "foos", namespace: "ns", name: "p", sub: "status"}
	for _, c := range []struct {
		got, want string
	}{
		{idOf(false, "create", cm, "", 1), "create:configmaps:p"},
		{idOf(false, "update", cm, "", 3), "update:configmaps:p:3"},
		{idOf(true, "update", cm, "", 1), "test-update:configmaps:p"},
		{idOf(false, "create", target{version: "v1", resource: "secrets"}, "p-", 2), "create:secrets:p-*:2"},
		{idOf(false, "update", foo, "", 1), "update:foos.example.com/status:p"},
	} {
		if c.got != c.want {
			t.Errorf("id %q, want %q", c.got, c.want)
		}
	}
}

// The plan keys each class to the writes it applies to, and names each
// perturbation once.
func TestPlan(t *testing.T) {
	cm := func(name string) target {
		return target{version: "v1", resource: "configmaps", namespace: "ns", name: name}
	}
	ref := []*write{
		{seq: 1, byTest: true, verb: "create", target: cm("p"), id: "test-create:configmaps:p", code: 201},
		{seq: 2, verb: "create", target: cm("c"), id: "create:configmaps:c", code: 201},
		{seq: 3, verb: "update", target: cm("c"), id: "update:configmaps:c", code: 409}, // retried below
		{seq: 4, verb: "update", target: cm("c"), id: "update:configmaps:c", code: 200},
		{seq: 5, byTest: true, verb: "delete", target: cm("p"), id: "test-delete:configmaps:p", code: 200},
	}
	var names []string
	for _, p := range plan(ref, map[string]bool{"configmaps": true}, nil) {
		names = append(names, p.name())
	}
	want := []string{
		"crash@create:configmaps:c", "crash@update:configmaps:c",
		"down@update:configmaps:c..test-delete:configmaps:p",
		"stale@create:configmaps:c", "stale@update:configmaps:c",
		"unobserved@create:configmaps:c",
		"conflict@update:configmaps:c",
		"error@create:configmaps:c", "error@update:configmaps:c",
		"timeout@create:configmaps:c", "timeout@update:configmaps:c",
		"throttle@create:configmaps:c", "throttle@update:configmaps:c",
		"restart@test-delete:configmaps:p",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	only := plan(ref, nil, map[Fault]bool{FaultCrash: true})
	if len(only) != 2 || only[0].fault != FaultCrash {
		t.Errorf("WithFaults(FaultCrash) planned %d perturbations", len(only))
	}
}

// End states compare what a controller decided, not what differs from run
// to run by itself.
func TestNormalizeAndDiff(t *testing.T) {
	obj := func(ns, name, uid, value string) map[string]any {
		return map[string]any{"metadata": map[string]any{
			"name": name, "namespace": ns, "uid": uid, "resourceVersion": "12", "creationTimestamp": "2026-11-29T04:00:00Z",
			"annotations":     map[string]any{otherWriter: "changed", "keep": "x"},
			"ownerReferences": []any{map[string]any{"name": "p", "uid": "owner-" + uid}},
		}, "data": map[string]any{"value": value, "at": "2026-11-29T05:00:00Z", "child": name, "skip": "a"}}
	}
	norm := func(ns, name, uid, value string) any {
		n := &normalizer{names: strings.NewReplacer(ns, "<namespace>", name, "p-*"), uids: map[string]bool{uid: true, "owner-" + uid: true}, ignored: []string{"/data/skip"}}
		raw := obj(ns, name, uid, value)
		out := n.object(raw)
		if _, ok := raw["metadata"].(map[string]any)["uid"]; !ok {
			t.Fatal("normalizing changed the raw object")
		}
		return out
	}
	a := endState{"configmaps <namespace>/p-*": {norm("ns-a", "p-abcde", "u1", "1")}}
	b := endState{"configmaps <namespace>/p-*": {norm("ns-b", "p-fghij", "u2", "1")}}
	if d := diff(a, b, 10, "in the unperturbed run", "here"); len(d) != 0 {
		t.Errorf("runs that differ only in identities, times and generated names differ: %v", d)
	}
	c := endState{"configmaps <namespace>/p-*": {norm("ns-c", "p-klmno", "u3", "2")}, "configmaps <namespace>/q": {absent}}
	d := diff(a, c, 10, "in the unperturbed run", "here")
	want := []string{
		`configmaps <namespace>/p-* /data/value: "1" in the unperturbed run, "2" here`,
		`configmaps <namespace>/q: not written in the unperturbed run; here absent`,
	}
	if strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
}

// A held watch delivers nothing, and everything once let go, in order; a
// cut one ends with an error, and its pump goroutine ends with it.
func TestWatchBodyHoldsAndCuts(t *testing.T) {
	pr, pw := io.Pipe()
	b := newWatchBody(pr)
	b.setHeld(true)
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, _ := b.Read(buf)
		got <- string(buf[:n])
	}()
	if _, err := pw.Write([]byte("event-1")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		t.Fatalf("a held watch delivered %q", s)
	case <-time.After(50 * time.Millisecond): // nothing may come: a bound, not a wait for a condition
	}
	b.setHeld(false)
	if s := <-got; s != "event-1" {
		t.Fatalf("after release read %q, want event-1", s)
	}
	b.cut()
	if _, err := b.Read(make([]byte, 8)); !errors.Is(err, errWatchCut) {
		t.Fatalf("a cut watch reads %v", err)
	}
	if _, err := pw.Write([]byte("x")); err == nil {
		t.Fatal("the connection stayed open after the cut")
	}
}

// The steps' failures end their goroutine and are kept, not reported to
// the explored test.
func TestRunTKeepsFailures(t *testing.T) {
	rt := newRunT(t, "run")
	reached := false
	rt.runSteps(func() {
		rt.Errorf("first %d", 1)
		rt.Fatal("second")
		reached = true
	})
	cleaned := false
	rt.Cleanup(func() { cleaned = true })
	rt.finish()
	failures, _ := rt.report()
	if reached || !rt.Failed() || strings.Join(failures, ",") != "first 1,second" || !cleaned || rt.Context().Err() == nil {
		t.Errorf("reached %v, failed %v, failures %q, cleaned %v", reached, rt.Failed(), failures, cleaned)
	}
}

// nameOfSeeds are a ConfigMap in the three encodings the API server speaks.
func nameOfSeeds(t testing.TB) map[string][]byte {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", GenerateName: "p-", Namespace: "ns"}, Data: map[string]string{"k": "v"}}
	js, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := cbor.Marshal(map[string]any{"metadata": map[string]any{"name": "p", "generateName": "p-"}, "data": map[string]any{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	var pb bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(cm, &pb); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"application/json": js, "application/cbor": cb, "application/vnd.kubernetes.protobuf": pb.Bytes()}
}

func TestNameOf(t *testing.T) {
	for ct, body := range nameOfSeeds(t) {
		n, err := nameOf(ct+"; charset=utf-8", body)
		if err != nil || n != (objectName{Name: "p", GenerateName: "p-"}) {
			t.Errorf("%s: %+v, %v", ct, n, err)
		}
	}
	if _, err := nameOf("application/yaml", []byte("a: b")); err == nil {
		t.Error("an unknown content type gave no error")
	}
}

// FuzzNameOf: any body, in any of the content types, gives names or an
// error, never a panic; where apimachinery's own decoders read an object,
// nameOf reads the same names.
func FuzzNameOf(f *testing.F) {
	types := []string{"application/json", "application/cbor", "application/vnd.kubernetes.protobuf"}
	for ct, body := range nameOfSeeds(f) {
		for i, t := range types {
			if t == ct {
				f.Add(uint8(i), body)
			}
		}
	}
	f.Add(uint8(2), []byte("k8s\x00\x12\x05\x0a\x03\x0a\x01p"))
	f.Add(uint8(2), []byte("k8s\x00\x12\xff\xff\xff\xff\x0f"))
	pb := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		ct := types[int(which)%len(types)]
		n, err := nameOf(ct, body)
		var ref metav1.ObjectMeta
		switch ct {
		case "application/json":
			var m struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if json.Unmarshal(body, &m) != nil {
				return
			}
			ref = m.Metadata
		case "application/vnd.kubernetes.protobuf":
			obj, _, derr := pb.Decode(body, nil, nil)
			cm, ok := obj.(*corev1.ConfigMap)
			if derr != nil || !ok {
				return
			}
			ref = cm.ObjectMeta
		default:
			return
		}
		if err != nil || n.Name != ref.Name || n.GenerateName != ref.GenerateName {
			t.Fatalf("%s: nameOf = %+v, %v; apimachinery reads %q, %q", ct, n, err, ref.Name, ref.GenerateName)
		}
	})
}

// FuzzParsePath: any path parses or is refused, never a panic; a parsed
// object's path parses back to the same object.
func FuzzParsePath(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/ns/configmaps/p", "/apis/g/v1/namespaces/ns/foos/p/status",
		"/api/v1/namespaces/ns", "/api/v1/namespaces/ns/finalize", "/apis/g/v1/clusterthings/x", "//api//v1", "/apis/g"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		tg, ok := parsePath(p)
		if !ok || tg.name == "" || strings.Contains(tg.name+tg.namespace+tg.resource+tg.group+tg.version, "/") {
			return
		}
		obj := tg
		obj.sub = ""
		back, ok := parsePath(obj.objectPath())
		if !ok || back != obj {
			t.Fatalf("%q parsed to %+v, whose path %q parses to %+v, %v", p, tg, obj.objectPath(), back, ok)
		}
	})
}
