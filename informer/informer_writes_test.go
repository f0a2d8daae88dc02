package informer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reflector"
)

// cmInformer is the informer these tests build.
type cmInformer = Informer[*corev1.ConfigMap]

const lowHalfShard = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"

// written is a ConfigMap as the API server returns it from a write.
func written(ns, name string, lbls map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, Labels: lbls, UID: types.UID("uid-" + ns + "-" + name), ResourceVersion: "5",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test", Operation: metav1.ManagedFieldsOperationUpdate}},
		},
		Data: map[string]string{"k": "v"},
	}
}

// unstartedInformer is an informer that is never started: AsCached needs
// none of its list and watch.
func unstartedInformer(t testing.TB) *cmInformer {
	return mustNew[*corev1.ConfigMap](t, newScriptLW(), WithName("configmaps"))
}

// shardUIDs returns a UID inside sel's shard and one outside it.
func shardUIDs(t *testing.T, sel string) (in, out types.UID) {
	t.Helper()
	for i := 0; in == "" || out == ""; i++ {
		if i == 1000 {
			t.Fatalf("no UIDs on both sides of %s", sel)
		}
		uid := types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012d", i*2654435761, i)) // UUID-shaped, as reflector's tests
		ok, err := reflector.MatchesShardSelector(sel, &metav1.ObjectMeta{UID: uid})
		switch {
		case err != nil:
			t.Fatal(err)
		case ok && in == "":
			in = uid
		case !ok && out == "":
			out = uid
		}
	}
	return in, out
}

// AsCached returns a copy of the object, the caller's left as it was,
// with what the informer's transforms do to it: without transforms an
// equal copy; with a factory's dropManaged, no managedFields, and the
// kind's and SetTransform's transforms applied after, in that order.
func TestAsCachedIsATransformedCopy(t *testing.T) {
	plain := unstartedInformer(t)
	in := written("ns", "x", map[string]string{"app": "web"})
	orig := in.DeepCopy()
	out, ok := plain.AsCached(in)
	if !ok || out == in || !equality.Semantic.DeepEqual(out, orig) {
		t.Fatalf("AsCached without transforms = %v, %v (same pointer %v); want an equal copy", out, ok, out == in)
	}
	out.Data["k"] = "changed"
	out.Labels["app"] = "changed"
	if !equality.Semantic.DeepEqual(in, orig) {
		t.Fatalf("changing AsCached's answer changed the object given: %v", in)
	}

	inf := unstartedInformer(t)
	inf.dropManaged = true
	var steps []string
	inf.kindTransform = func(c *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		steps = append(steps, fmt.Sprintf("kind saw %d managedFields", len(c.ManagedFields)))
		c.Labels["kind"] = "yes"
		return c, nil
	}
	if err := inf.SetTransform(func(c *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		steps = append(steps, "transform saw kind="+c.Labels["kind"])
		c.Data["transformed"] = "yes"
		return c, nil
	}); err != nil {
		t.Fatal(err)
	}
	out, ok = inf.AsCached(in)
	if !ok {
		t.Fatal("AsCached with transforms: false")
	}
	want := orig.DeepCopy()
	want.ManagedFields = nil
	want.Labels["kind"] = "yes"
	want.Data["transformed"] = "yes"
	if !equality.Semantic.DeepEqual(out, want) {
		t.Fatalf("AsCached with transforms = %+v; want %+v", out, want)
	}
	if wantSteps := []string{"kind saw 0 managedFields", "transform saw kind=yes"}; !slices.Equal(steps, wantSteps) {
		t.Fatalf("transforms ran as %q; want %q", steps, wantSteps)
	}
	if !equality.Semantic.DeepEqual(in, orig) {
		t.Fatalf("the transforms changed the object given: %+v", in)
	}
}

// AsCached reports false, and the zero object, when the informer would
// not hold the object or cannot tell: outside its namespaces, label
// selector, field selector or shard, a field selector on a field other
// than the name and namespace, a failing transform. Inside all of them it
// holds it.
func TestAsCachedFalseOutsideTheInformer(t *testing.T) {
	inShard, outShard := shardUIDs(t, lowHalfShard)
	for _, tc := range []struct {
		name  string
		setup func(*testing.T, *cmInformer)
		obj   func(*corev1.ConfigMap)
		want  bool
	}{
		{"no restriction", nil, nil, true},
		{"in its namespaces", func(t *testing.T, inf *cmInformer) { inf.namespaces = []string{"a", "ns"} }, nil, true},
		{"outside its namespaces", func(t *testing.T, inf *cmInformer) { inf.namespaces = []string{"a", "b"} }, nil, false},
		{"matching its label selector", func(t *testing.T, inf *cmInformer) { inf.selector.Labels = "app=web,tier!=db" }, nil, true},
		{"not matching its label selector", func(t *testing.T, inf *cmInformer) { inf.selector.Labels = "app=db" }, nil, false},
		{"excluded by its label selector", func(t *testing.T, inf *cmInformer) { inf.selector.Labels = "!tier" }, nil, false},
		{"lacking a label it requires", func(t *testing.T, inf *cmInformer) { inf.selector.Labels = "owner" }, nil, false},
		{"a malformed label selector", func(t *testing.T, inf *cmInformer) { inf.selector.Labels = "app in (" }, nil, false},
		{"metadata.name matching", func(t *testing.T, inf *cmInformer) { inf.selector.Fields = "metadata.name=x" }, nil, true},
		{"metadata.name not matching", func(t *testing.T, inf *cmInformer) { inf.selector.Fields = "metadata.name=y" }, nil, false},
		{"metadata.name excluded", func(t *testing.T, inf *cmInformer) { inf.selector.Fields = "metadata.name!=x" }, nil, false},
		{"metadata.namespace matching", func(t *testing.T, inf *cmInformer) {
			inf.selector.Fields = "metadata.namespace=ns,metadata.name!=y"
		}, nil, true},
		{"metadata.namespace not matching", func(t *testing.T, inf *cmInformer) { inf.selector.Fields = "metadata.namespace=a" }, nil, false},
		{"another field: cannot tell", func(t *testing.T, inf *cmInformer) { inf.selector.Fields = "type=Opaque" }, nil, false},
		{"another field beside the name: cannot tell", func(t *testing.T, inf *cmInformer) {
			inf.selector.Fields = "metadata.name=x,status.phase!=Gone"
		}, nil, false},
		{"inside its shard", func(t *testing.T, inf *cmInformer) {
			if err := inf.SetShardSelector(lowHalfShard); err != nil {
				t.Fatal(err)
			}
		}, func(c *corev1.ConfigMap) { c.UID = inShard }, true},
		{"outside its shard", func(t *testing.T, inf *cmInformer) {
			if err := inf.SetShardSelector(lowHalfShard); err != nil {
				t.Fatal(err)
			}
		}, func(c *corev1.ConfigMap) { c.UID = outShard }, false},
		{"outside a factory kind's shard", func(t *testing.T, inf *cmInformer) { inf.shardSelector = lowHalfShard },
			func(c *corev1.ConfigMap) { c.UID = outShard }, false},
		{"a failing transform", func(t *testing.T, inf *cmInformer) {
			if err := inf.SetTransform(func(c *corev1.ConfigMap) (*corev1.ConfigMap, error) {
				return c, errors.New("refused")
			}); err != nil {
				t.Fatal(err)
			}
		}, nil, false},
		{"a failing kind transform", func(t *testing.T, inf *cmInformer) {
			inf.kindTransform = func(c *corev1.ConfigMap) (*corev1.ConfigMap, error) { return c, errors.New("refused") }
		}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf := unstartedInformer(t)
			if tc.setup != nil {
				tc.setup(t, inf)
			}
			in := written("ns", "x", map[string]string{"app": "web", "tier": "front"})
			if tc.obj != nil {
				tc.obj(in)
			}
			orig := in.DeepCopy()
			out, ok := inf.AsCached(in)
			if ok != tc.want {
				t.Fatalf("AsCached(%s) = %v; want %v", object.Key(in), ok, tc.want)
			}
			if !ok && out != nil {
				t.Fatalf("AsCached false with an object: %v", out)
			}
			if ok && (out == in || !equality.Semantic.DeepEqual(out, orig)) {
				t.Fatalf("AsCached = %v (same pointer %v); want an equal copy", out, out == in)
			}
			if !equality.Semantic.DeepEqual(in, orig) {
				t.Fatalf("AsCached changed the object given: %+v", in)
			}
		})
	}
}

// wouldHold agrees with the shard selector's own test for either side of
// the shard, and ignores the transforms.
func TestWouldHoldFollowsTheShard(t *testing.T) {
	inShard, outShard := shardUIDs(t, lowHalfShard)
	inf := unstartedInformer(t)
	if err := inf.SetShardSelector(lowHalfShard); err != nil {
		t.Fatal(err)
	}
	if err := inf.SetTransform(func(c *corev1.ConfigMap) (*corev1.ConfigMap, error) { return c, errors.New("refused") }); err != nil {
		t.Fatal(err)
	}
	for uid, want := range map[types.UID]bool{inShard: true, outShard: false} {
		c := written("ns", "x", nil)
		c.UID = uid
		if got := inf.wouldHold(c); got != want {
			t.Errorf("wouldHold(uid %s) = %v; want %v", uid, got, want)
		}
	}
}

// ValuesOf answers for an object the cache need not hold: its namespace
// for NamespaceIndex, what a user index's func returns for the others; an
// unknown index is ErrUnknownIndex, and a failing func's error is wrapped
// in one naming the index and the object. It changes no index.
func TestCacheValuesOf(t *testing.T) {
	forCacheModes(t, testCacheValuesOf)
}

func testCacheValuesOf(t *testing.T, mode cacheMode) {
	c := mode.cache(t)
	errBad := errors.New("node name is bad")
	if err := c.AddIndex("node", func(p *corev1.Pod) ([]string, error) {
		switch p.Spec.NodeName {
		case "bad":
			return nil, errBad
		case "":
			return nil, nil
		}
		return []string{p.Spec.NodeName, "any"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		index string
		pod   *corev1.Pod
		want  []string
	}{
		{NamespaceIndex, pod("a", "p", "n1", nil), []string{"a"}},
		{NamespaceIndex, pod("", "cluster-wide", "", nil), []string{""}},
		{"node", pod("a", "p", "n1", nil), []string{"n1", "any"}},
		{"node", pod("a", "p", "", nil), nil},
	} {
		got, err := c.ValuesOf(tc.index, tc.pod)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ValuesOf(%s, %s) = %q, %v; want %q", tc.index, object.Key(tc.pod), got, err, tc.want)
		}
	}

	if got, err := c.ValuesOf("zone", pod("a", "p", "n1", nil)); !errors.Is(err, ErrUnknownIndex) || !strings.Contains(err.Error(), `"zone"`) || got != nil {
		t.Errorf("ValuesOf of an unknown index = %q, %v; want ErrUnknownIndex naming it", got, err)
	}
	got, err := c.ValuesOf("node", pod("a", "bad-pod", "bad", nil))
	if !errors.Is(err, errBad) || !strings.Contains(err.Error(), "a/bad-pod") || !strings.Contains(err.Error(), `"node"`) || got != nil {
		t.Errorf("ValuesOf with a failing index func = %q, %v; want its error, naming the index and a/bad-pod", got, err)
	}

	if n := c.Len(); n != 0 {
		t.Fatalf("ValuesOf put %d objects in the cache", n)
	}
	for _, index := range []string{NamespaceIndex, "node"} {
		if vals := c.IndexValues(index); len(vals) != 0 {
			t.Fatalf("ValuesOf filed objects in index %s under %q", index, vals)
		}
	}
}
