package object

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

func TestKeyRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		obj  metav1.Object
		want string
	}{
		{&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}}, "ns/web"},
		{&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, "node-1"},
	} {
		key := Key(tc.obj)
		if key != tc.want {
			t.Errorf("Key(%s/%s) = %q, want %q", tc.obj.GetNamespace(), tc.obj.GetName(), key, tc.want)
		}
		// client-go's listers look objects up by the same key.
		if cg, err := cache.MetaNamespaceKeyFunc(tc.obj); err != nil || cg != key {
			t.Errorf("client-go's key for %q is %q (err %v)", key, cg, err)
		}
		want := types.NamespacedName{Namespace: tc.obj.GetNamespace(), Name: tc.obj.GetName()}
		if got := ParseKey(key); got != want {
			t.Errorf("ParseKey(%q) = %#v, want %#v", key, got, want)
		}
		if got := FormatKey(want); got != key {
			t.Errorf("FormatKey(%#v) = %q, want %q", want, got, key)
		}
	}
}

func TestKeysDoNotAllocateBeyondTheString(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}}
	key := Key(pod)
	if n := testing.AllocsPerRun(100, func() { _ = ParseKey(key) }); n != 0 {
		t.Errorf("ParseKey allocates %v times; the informer calls it for every delete", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Key(pod) }); n > 1 {
		t.Errorf("Key allocates %v times, want at most the key itself", n)
	}
}
