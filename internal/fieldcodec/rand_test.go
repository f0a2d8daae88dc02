package fieldcodec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// filler sets values at random, with as many nil, empty and zero values
// as set ones, in the forms an object decoded from the API server's JSON
// has (times in Local or UTC to the second, quantities as parsed).
type filler struct {
	r     *rand.Rand
	depth int
}

func (f *filler) oneIn(n int) bool { return f.r.IntN(n) == 0 }

var words = []string{"", "a", "app", "team-3-prod", "registry.example.com/app:v1.2", "héllo wörld", "x\x00y", "\"quoted\"\n"}

func (f *filler) string() string {
	if f.oneIn(4) {
		return fmt.Sprintf("s-%d", f.r.IntN(1000))
	}
	return words[f.r.IntN(len(words))]
}

func (f *filler) time(micro bool) time.Time {
	if f.oneIn(4) {
		return time.Time{}
	}
	t := time.Unix(f.r.Int64N(4e9)-1e9, 0)
	if micro {
		t = t.Add(time.Duration(f.r.IntN(1e6)) * time.Microsecond)
	}
	if f.oneIn(2) {
		return t.UTC()
	}
	return t
}

var quantities = []string{"0", "1", "250m", "1Gi", "1500Mi", "2.5", "1e3", "100k", "-3", "12345678901234567890"}

func (f *filler) fill(v reflect.Value) {
	switch v.Type() {
	case reflect.TypeFor[metav1.Time]():
		v.Set(reflect.ValueOf(metav1.NewTime(f.time(false))))
		return
	case reflect.TypeFor[metav1.MicroTime]():
		v.Set(reflect.ValueOf(metav1.NewMicroTime(f.time(true))))
		return
	case reflect.TypeFor[resource.Quantity]():
		if !f.oneIn(4) {
			q := resource.MustParse(quantities[f.r.IntN(len(quantities))])
			v.Set(reflect.ValueOf(resource.MustParse(q.String()))) // as decoded from JSON
		}
		return
	case reflect.TypeFor[intstr.IntOrString]():
		if f.oneIn(2) {
			v.Set(reflect.ValueOf(intstr.FromInt32(f.r.Int32() - math.MaxInt32/2)))
		} else {
			v.Set(reflect.ValueOf(intstr.FromString(f.string())))
		}
		return
	case reflect.TypeFor[runtime.RawExtension]():
		if !f.oneIn(3) {
			v.Set(reflect.ValueOf(runtime.RawExtension{Raw: fmt.Appendf(nil, `{"n":%d,"s":[1,"x",null]}`, f.r.IntN(100))}))
		}
		return
	case reflect.TypeFor[metav1.FieldsV1]():
		v.Set(reflect.ValueOf(*metav1.NewFieldsV1(fmt.Sprintf(`{"f:spec":{"f:n%d":{}}}`, f.r.IntN(9)))))
		return
	}
	f.depth++
	defer func() { f.depth-- }()
	deep := f.depth > 6
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(f.oneIn(2))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := v.Type().Bits()
		switch f.r.IntN(3) {
		case 0:
		case 1:
			v.SetInt(int64(f.r.IntN(200)) - 100)
		default:
			v.SetInt(int64(f.r.Uint64()) >> (64 - bits))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !f.oneIn(3) {
			v.SetUint(f.r.Uint64() >> (64 - v.Type().Bits()))
		}
	case reflect.Float32, reflect.Float64:
		switch f.r.IntN(4) {
		case 0:
		case 1:
			v.SetFloat(float64(f.r.IntN(8)) / 4)
		case 2:
			v.SetFloat(float64(float32(f.r.NormFloat64() * 1e6)))
		default:
			v.SetFloat(-math.MaxFloat32)
		}
	case reflect.String:
		v.SetString(f.string())
	case reflect.Pointer:
		if !deep && !f.oneIn(3) {
			p := reflect.New(v.Type().Elem())
			f.fill(p.Elem())
			v.Set(p)
		}
	case reflect.Slice:
		n, isNil := f.length(deep)
		if isNil {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i))
		}
	case reflect.Map:
		n, isNil := f.length(deep)
		if isNil {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range n {
			k, x := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k)
			f.fill(x)
			m.SetMapIndex(k, x)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			if sf.Tag.Get("json") != "-" && (sf.IsExported() || sf.Anonymous) {
				f.fill(v.Field(i))
			}
		}
	default:
		panic(fmt.Sprintf("filler: %v", v.Type()))
	}
}

// length is that of a slice or map: nil, empty or a few elements.
func (f *filler) length(deep bool) (int, bool) {
	switch {
	case deep || f.oneIn(4):
		return 0, true
	case f.oneIn(3):
		return 0, false
	}
	return 1 + f.r.IntN(3), false
}

// firstDiff names the first place where a and b differ by
// reflect.DeepEqual, for failure messages.
func firstDiff(path string, a, b reflect.Value) string {
	if a.IsValid() != b.IsValid() {
		return path + ": one is missing"
	}
	if !a.IsValid() || reflect.DeepEqual(valueOf(a), valueOf(b)) {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
		}
		return firstDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type().PkgPath() == "time" {
			break
		}
		for i := range a.NumField() {
			if d := firstDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && (a.IsNil() != b.IsNil() || a.Len() != b.Len()) {
			return fmt.Sprintf("%s: nil %v len %d vs nil %v len %d", path, a.IsNil(), a.Len(), b.IsNil(), b.Len())
		}
		for i := range a.Len() {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: nil %v len %d vs nil %v len %d", path, a.IsNil(), a.Len(), b.IsNil(), b.Len())
		}
		for _, k := range a.MapKeys() {
			if d := firstDiff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k)); d != "" {
				return d
			}
		}
	}
	return fmt.Sprintf("%s: %#v vs %#v", path, valueOf(a), valueOf(b))
}

// valueOf returns v's value, also for unexported fields (as a string).
func valueOf(v reflect.Value) any {
	if v.CanInterface() {
		return v.Interface()
	}
	return fmt.Sprintf("%#v", v)
}
