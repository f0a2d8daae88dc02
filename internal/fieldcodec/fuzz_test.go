package fieldcodec

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"runtime/metrics"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// fuzzed is a kind the fuzzers decode and encode: a Codec's Decode and
// Encode, and JSON's, through any.
type fuzzed struct {
	name   string
	decode func([]byte) (any, error)
	encode func(any) ([]byte, error)
	json   func([]byte) (any, error) // a new object decoded from JSON
}

func fuzzedKind[E any](t testing.TB, name string) fuzzed {
	c, err := For[*E]()
	if err != nil {
		t.Fatal(err)
	}
	return fuzzed{
		name:   name,
		decode: func(b []byte) (any, error) { return c.Decode(b) },
		encode: func(obj any) ([]byte, error) { return c.Encode(obj.(*E)) },
		json: func(b []byte) (any, error) {
			obj := new(E)
			return obj, utiljson.Unmarshal(b, obj)
		},
	}
}

func fuzzedKinds(t testing.TB) []fuzzed {
	return []fuzzed{fuzzedKind[gizmo](t, "gizmo"), fuzzedKind[corev1.Pod](t, "Pod"), fuzzedKind[blob](t, "blob")}
}

// seedObjects returns random objects of each kind, as the API server's
// JSON decodes to: the seeds.
func seedObjects(t testing.TB, n int) []any {
	f := &filler{r: rand.New(rand.NewPCG(4, 1))}
	var out []any
	for range n {
		for _, obj := range []any{new(gizmo), new(corev1.Pod), new(blob)} {
			f.fill(reflect.ValueOf(obj).Elem())
			b, err := utiljson.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			back := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
			if err := utiljson.Unmarshal(b, back); err != nil {
				t.Fatal(err)
			}
			out = append(out, back)
		}
	}
	return out
}

// respell sets every quantity v holds to its canonical spelling, as
// parsed from its JSON: the same amount, deep-equal as decoded.
func respell(v reflect.Value) {
	switch {
	case v.Type() == quantityType:
		if q := v.Interface().(resource.Quantity); !v.IsZero() {
			v.Set(reflect.ValueOf(resource.MustParse(q.String())))
		}
		return
	case v.Type().PkgPath() == "time":
		return // unexported fields, and no quantity
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			respell(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				respell(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			respell(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			x := reflect.New(v.Type().Elem()).Elem()
			x.Set(v.MapIndex(k))
			respell(x)
			v.SetMapIndex(k, x)
		}
	}
}

// allocated returns the bytes allocated so far by the process.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// exactlyAllocated returns the least that three runs of f allocate,
// counted exactly (runtime.ReadMemStats stops the world to count).
func exactlyAllocated(f func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// maxAllocPerByte bounds what a decode allocates for each byte decoded:
// a count of elements is refused past the bytes left, and each element
// is at most a few KiB of Go values (a Pod's containers, 408 bytes each,
// their environment variables, and so on down). A byte of input is worth
// at most the sizes of one path of nested elements.
const maxAllocPerByte = 4 << 10

// FuzzDecode decodes any bytes as each kind: an error or an object,
// never a panic, and an allocation bounded by the input's length (a
// count or a length past the bytes left is refused before anything is
// allocated for it). An object decoded encodes again, and that encoding
// decodes and encodes to itself (the bytes given may be another encoding
// of the same object: map entries out of order, varints longer than they
// need be).
func FuzzDecode(f *testing.F) {
	kinds := fuzzedKinds(f)
	for i, obj := range seedObjects(f, 4) {
		b, err := kinds[i%len(kinds)].encode(obj)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, 12))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range kinds {
			bound := 64<<10 + maxAllocPerByte*uint64(len(b))
			before := allocated()
			obj, err := k.decode(b)
			if n := allocated() - before; n > bound {
				// The count is the process's, and takes in allocations
				// not yet counted: measure again, exactly, before failing.
				if n = exactlyAllocated(func() { _, _ = k.decode(b) }); n > bound {
					t.Fatalf("%s: decoding %d bytes allocated %d", k.name, len(b), n)
				}
			}
			if err != nil {
				continue
			}
			again, err := k.encode(obj)
			if err != nil {
				t.Fatalf("%s: %v encoding %#v", k.name, err, obj)
			}
			back, err := k.decode(again)
			if err != nil {
				t.Fatalf("%s: %v decoding its own encoding %x", k.name, err, again)
			}
			if third, err := k.encode(back); err != nil || !bytes.Equal(third, again) {
				t.Fatalf("%s: encoded %x, then %x (%v)", k.name, again, third, err)
			}
		}
	})
}

// FuzzJSON checks the codec against JSON: an object decoded from JSON,
// as the API server's JSON decodes to (the JSON of one decoded, decoded
// again: a quantity spelled "1e3" is "1k" there), comes back from its
// encoding deep-equal, and with the same JSON; and the object decoded
// from the JSON given comes back deep-equal but for the spelling of its
// quantities (equal amounts).
func FuzzJSON(f *testing.F) {
	for _, obj := range seedObjects(f, 4) {
		b, err := utiljson.Marshal(obj)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"metadata":{"name":"a","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"k":"v"}},"spec":{"size":"1e3","port":"http","timeout":"1m30s","ratio":0.5}}`,
		`{"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"0.5","memory":"1Gi"}}}]},"status":{"startTime":"0001-01-01T00:00:00Z"}}`,
		`{"data":{"a":[1,{"b":null}]},"more":[null,{}],"byName":{"x":"y"},"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}}}]}}`,
		`{"spec":{"matrix":[[1,2],[]],"fixed":[1,2,3],"weights":{"-1":"a","2":"b"},"shards":{"7":null},"tree":{"name":"t","next":{"children":[{}]}}}}`,
	} {
		f.Add([]byte(s))
	}
	kinds := fuzzedKinds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range kinds {
			obj, err := k.json(b)
			if err != nil {
				continue
			}
			canonical, err := utiljson.Marshal(obj)
			if err != nil {
				continue // a value JSON does not write back (NaN cannot come from JSON; a cycle cannot either)
			}
			want, err := k.json(canonical)
			if err != nil {
				t.Fatalf("%s: JSON does not decode its own %s: %v", k.name, canonical, err)
			}
			enc, err := k.encode(want)
			if err != nil {
				t.Fatalf("%s: %v encoding %s", k.name, err, canonical)
			}
			got, err := k.decode(enc)
			if err != nil {
				t.Fatalf("%s: %v decoding the encoding of %s", k.name, err, canonical)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %s came back different: %s", k.name, canonical, firstDiff("", reflect.ValueOf(got), reflect.ValueOf(want)))
			}
			j, err := utiljson.Marshal(got)
			if wantJSON, _ := utiljson.Marshal(want); err != nil || !bytes.Equal(j, wantJSON) {
				t.Fatalf("%s: the JSON of %s came back as %s (%v)", k.name, wantJSON, j, err)
			}
			// The object first decoded, not made canonical, comes back
			// equal too, but for quantities' spellings.
			enc, err = k.encode(obj)
			if err != nil {
				t.Fatalf("%s: %v encoding %s", k.name, err, b)
			}
			if got, err = k.decode(enc); err != nil {
				t.Fatalf("%s: %v decoding the encoding of %s", k.name, err, b)
			}
			respell(reflect.ValueOf(got))
			respell(reflect.ValueOf(obj))
			if !reflect.DeepEqual(got, obj) {
				t.Fatalf("%s: %s came back different (%v): %s", k.name, b, err, firstDiff("", reflect.ValueOf(got), reflect.ValueOf(obj)))
			}
		}
	})
}
