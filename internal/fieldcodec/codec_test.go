package fieldcodec

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

const randomObjects = 1000

// forEachKind runs test for each kind of types_test.go.
func forEachKind(t *testing.T, test func(t *testing.T, check func(t *testing.T, seed uint64, roundTrip func(any) any))) {
	t.Run("gizmo", func(t *testing.T) { test(t, property[gizmo](t)) })
	t.Run("widget", func(t *testing.T) { test(t, property[widget](t)) })
	t.Run("blob", func(t *testing.T) { test(t, property[blob](t)) })
	t.Run("Pod", func(t *testing.T) { test(t, property[corev1.Pod](t)) })
}

// property returns a checker that makes random objects of E, passes each
// through roundTrip (nothing, or a JSON round trip: what the cache would
// hold), and checks that the codec gives the result back DeepEqual, and
// that equal objects encode to equal bytes.
func property[E any](t *testing.T) func(t *testing.T, seed uint64, roundTrip func(any) any) {
	c, err := For[*E]()
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T, seed uint64, roundTrip func(any) any) {
		f := &filler{r: rand.New(rand.NewPCG(seed, 1))}
		for i := range randomObjects {
			obj := new(E)
			f.fill(reflect.ValueOf(obj).Elem())
			want := roundTrip(obj).(*E)
			b, err := c.Encode(want)
			if err != nil {
				t.Fatalf("object %d: %v", i, err)
			}
			got, err := c.Decode(b)
			if err != nil {
				t.Fatalf("object %d: %v", i, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("object %d decoded differs: %s", i, firstDiff("", reflect.ValueOf(got), reflect.ValueOf(want)))
			}
			again, err := c.Encode(got)
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("object %d: encoded again to other bytes (%v):\n%x\n%x", i, err, again, b)
			}
		}
	}
}

func TestRoundTripIsExact(t *testing.T) {
	forEachKind(t, func(t *testing.T, check func(*testing.T, uint64, func(any) any)) {
		check(t, 1, func(obj any) any { return obj })
	})
}

// TestRoundTripOfJSONDecoded checks objects as the API server's JSON
// decodes to, which is what caches hold: times in Local to the second or
// microsecond, empty omitempty slices and maps nil.
func TestRoundTripOfJSONDecoded(t *testing.T) {
	forEachKind(t, func(t *testing.T, check func(*testing.T, uint64, func(any) any)) {
		check(t, 2, func(obj any) any {
			b, err := utiljson.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			out := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
			if err := utiljson.Unmarshal(b, out); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			return out
		})
	})
}

func TestNilAndEmptyStayApart(t *testing.T) {
	c, err := For[*gizmo]()
	if err != nil {
		t.Fatal(err)
	}
	g := &gizmo{}
	g.Spec.Names, g.Spec.Blob, g.Spec.Backends, g.Labels = []string{}, []byte{}, map[string]backend{}, map[string]string{}
	got := roundTrip(t, c, g)
	if got.Spec.Names == nil || got.Spec.Blob == nil || got.Spec.Backends == nil || got.Labels == nil {
		t.Fatalf("empty came back nil: %#v", got)
	}
	if got.Spec.Tags != nil || got.Spec.Weights != nil || got.Annotations != nil || got.Spec.Replicas != nil {
		t.Fatalf("nil came back empty: %#v", got)
	}
}

func TestTimes(t *testing.T) {
	c, err := For[*gizmo]()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 24, 10, 0, 0, 123456789, time.UTC)
	for _, tc := range []struct {
		name     string
		in, want time.Time
	}{
		{"zero", time.Time{}, time.Time{}},
		{"UTC", at, at},
		{"Local", at.Local(), at.Local()},
		{"fixed zone decodes as Local, as from JSON", at.In(time.FixedZone("X", 3600)), at.Local()},
		{"zero instant in Local, as JSON decodes 0001-01-01T00:00:00Z", time.Time{}.Local(), time.Time{}.Local()},
		{"monotonic reading dropped", time.Now(), time.Now().Round(0)},
		{"before 1970", time.Date(1900, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(1900, 1, 1, 0, 0, 0, 1, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gizmo{}
			g.CreationTimestamp = metav1.NewTime(tc.in)
			g.Status.LastSeen = metav1.NewMicroTime(tc.in)
			got := roundTrip(t, c, g)
			want := tc.want
			if tc.name == "monotonic reading dropped" {
				want = tc.in.Round(0)
			}
			if !reflect.DeepEqual(got.CreationTimestamp.Time, want) || !reflect.DeepEqual(got.Status.LastSeen.Time, want) {
				t.Fatalf("got %v (%v), want %v (%v)", got.CreationTimestamp.Time, got.CreationTimestamp.Location(), want, want.Location())
			}
		})
	}
}

// TestRawExtensionObject: an Object without Raw decodes as its JSON, as
// from the API server; Object is nil after a decode.
func TestRawExtensionObject(t *testing.T) {
	c, err := For[*blob]()
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, Data: map[string]string{"k": "v"}}
	got := roundTrip(t, c, &blob{Data: runtime.RawExtension{Object: cm}})
	want, _ := utiljson.Marshal(cm)
	if got.Data.Object != nil || !bytes.Equal(got.Data.Raw, want) {
		t.Fatalf("got Raw %s, Object %v; want Raw %s", got.Data.Raw, got.Data.Object, want)
	}
	got = roundTrip(t, c, &blob{Data: runtime.RawExtension{Raw: []byte(`{"a":1}`), Object: cm}})
	if got.Data.Object != nil || string(got.Data.Raw) != `{"a":1}` {
		t.Fatalf("got Raw %s, Object %v; want Raw kept", got.Data.Raw, got.Data.Object)
	}
}

// TestDecodedSharesNothing changes the bytes decoded and checks the
// object did not change.
func TestDecodedSharesNothing(t *testing.T) {
	c, err := For[*gizmo]()
	if err != nil {
		t.Fatal(err)
	}
	g := &gizmo{ObjectMeta: metav1.ObjectMeta{Name: "name"}}
	g.Spec.Blob = []byte("blob")
	b, _ := c.Encode(g)
	got, err := c.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 'z'
	}
	if got.Name != "name" || string(got.Spec.Blob) != "blob" {
		t.Fatalf("decoded object changed with its bytes: %q %q", got.Name, got.Spec.Blob)
	}
}

func roundTrip[T any](t *testing.T, c *Codec[T], obj T) T {
	t.Helper()
	b, err := c.Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestMalformed decodes every truncation and many corruptions of
// encodings: errors, never a panic.
func TestMalformed(t *testing.T) {
	c, err := For[*gizmo]()
	if err != nil {
		t.Fatal(err)
	}
	f := &filler{r: rand.New(rand.NewPCG(3, 1))}
	for range 50 {
		g := &gizmo{}
		f.fill(reflect.ValueOf(g).Elem())
		b, err := c.Encode(g)
		if err != nil {
			t.Fatal(err)
		}
		for i := range len(b) {
			if _, err := c.Decode(b[:i]); err == nil {
				t.Fatalf("%d of %d bytes decoded without an error", i, len(b))
			}
		}
		if _, err := c.Decode(append(bytes.Clone(b), 0)); err == nil || !strings.Contains(err.Error(), "left over") {
			t.Fatalf("a byte too many: %v", err)
		}
		for range 200 {
			bad := bytes.Clone(b)
			bad[f.r.IntN(len(bad))] = byte(f.r.Uint32())
			_, _ = c.Decode(bad) // must not panic
		}
	}
}

// TestCycle: a value that holds itself is an error, not a stack overflow.
func TestCycle(t *testing.T) {
	c, err := For[*gizmo]()
	if err != nil {
		t.Fatal(err)
	}
	g := &gizmo{}
	g.Spec.Tree = &node{Name: "a"}
	g.Spec.Tree.Next = g.Spec.Tree
	if _, err := c.Encode(g); err == nil || !strings.Contains(err.Error(), "a cycle?") {
		t.Fatalf("a pointer cycle encoded: %v", err)
	}
	g.Spec.Tree = &node{Children: make([]node, 1)}
	g.Spec.Tree.Children[0].Children = g.Spec.Tree.Children
	if _, err := c.Encode(g); err == nil || !strings.Contains(err.Error(), "a cycle?") {
		t.Fatalf("a slice cycle encoded: %v", err)
	}
	deep := &node{}
	for range maxDepth / 2 {
		deep = &node{Next: deep}
	}
	g.Spec.Tree = deep
	if got := roundTrip(t, c, g); !reflect.DeepEqual(got, g) {
		t.Fatal("a deep tree came back different")
	}
}

type (
	withInterface struct{ Spec struct{ Value any } }
	withTime      struct{ At time.Time }
	withMarshaler struct{ Color color }
	withBoolKeys  struct{ Set map[bool]string }
	withFunc      struct{ F *func() }
	color         int
)

func (c color) MarshalText() ([]byte, error) { return []byte("red"), nil }

func TestRefusedTypes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errOf[*withInterface](), "withInterface.Spec.Value: a interface {} has no fixed form"},
		{errOf[*withTime](), "withTime.At: time.Time has its own JSON or text encoding"},
		{errOf[*withMarshaler](), "withMarshaler.Color: fieldcodec.color has its own JSON or text encoding"},
		{errOf[*withBoolKeys](), "withBoolKeys.Set: a map keyed by bool has no JSON form"},
		{errOf[*withFunc](), "withFunc.F: a func() has no fixed form"},
		{errOf[withFunc](), "want a pointer to a struct"},
		{errOf[*string](), "want a pointer to a struct"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want one with %q", tc.err, tc.want)
		}
	}
}

func errOf[T any]() error {
	_, err := For[T]()
	return err
}
