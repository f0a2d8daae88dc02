package conversiontest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// newFiller returns a filler of random objects for seed, with the default
// functions and then funcs. It reports a function randfill refuses as an
// error instead of randfill's panic.
func newFiller(seed int64, funcs []any) (f *randfill.Filler, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("%v", p)
		}
	}()
	return randfill.NewWithSeed(seed).NilChance(0.2).NumElements(1, 5).MaxDepth(24).
		Funcs(defaultFuncs...).Funcs(funcs...), nil
}

// fill fills obj, reporting a type randfill cannot fill as an error.
func fill(f *randfill.Filler, obj runtime.Object) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	f.Fill(obj)
	return nil
}

// defaultFuncs keep the comparison about the kind's own fields: what the
// handler sets (TypeMeta) stays empty, metadata is what a conversion
// should carry over, and types whose random internals would make no sense
// get valid values.
var defaultFuncs = []any{
	func(tm *metav1.TypeMeta, _ randfill.Continue) { *tm = metav1.TypeMeta{} },
	func(m *metav1.ObjectMeta, c randfill.Continue) {
		*m = metav1.ObjectMeta{Name: fmt.Sprintf("name-%d", c.Intn(1000)), Namespace: fmt.Sprintf("ns-%d", c.Intn(10))}
		c.Fill(&m.Labels)
		c.Fill(&m.Annotations)
	},
	func(q *resource.Quantity, c randfill.Continue) {
		*q = *resource.NewMilliQuantity(c.Int63n(1<<40), resource.DecimalSI)
	},
	func(v *intstr.IntOrString, c randfill.Continue) {
		if c.Bool() {
			*v = intstr.FromInt32(c.Int31())
		} else {
			*v = intstr.FromString(c.String(0))
		}
	},
	func(r *runtime.RawExtension, c randfill.Continue) {
		*r = runtime.RawExtension{Raw: fmt.Appendf(nil, `{"n":%d}`, c.Intn(1000))}
	},
}
