package informer

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// A factory's compact ConfigMap cache stores the bytes its watch decoded
// (the streamed list's and the updates'), taking every one of them, and
// those bytes are exactly what encoding the object would have given: the
// server's protobuf of the object, without managedFields when they are
// dropped, so an unchanged object is still recognised as unchanged. With a
// transform nothing is kept, as the cached object is not the decoded one.
func TestCompactCacheStoresTheWatchedBytes(t *testing.T) {
	cfg := protobufConfig(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := testkit.Namespace(t, "wirebytes-")
	ctx := context.Background()
	for i := range 30 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i), Labels: map[string]string{"i": fmt.Sprint(i)}},
			Data: map[string]string{"k": fmt.Sprint(i), "a": "b"}, BinaryData: map[string][]byte{"b": {byte(i), 0, 255}}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name      string
		keep      bool
		transform bool
	}{{"managedFields=drop", false, false}, {"managedFields=keep", true, false}, {"transform", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			// The compact cache and the watch's protobuf are fast paths:
			// asked for, whatever STEADY_FAST_PATHS says.
			cl, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme), cluster.WithFastPaths(true))
			if err != nil {
				t.Fatal(err)
			}
			f, err := NewFactory(cl, WithKeepManagedFields(tc.keep))
			if err != nil {
				t.Fatal(err)
			}
			inf, err := For[*corev1.ConfigMap](f, ns, object.Selector{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.transform {
				if err := inf.SetTransform(func(cm *corev1.ConfigMap) (*corev1.ConfigMap, error) { cm.Data["seen"] = "yes"; return cm, nil }); err != nil {
					t.Fatal(err)
				}
			}
			runCtx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); _ = f.Start(runCtx) }()
			defer func() { cancel(); <-done }()
			if err := f.WaitForCacheSync(ctx); err != nil {
				t.Fatal(err)
			}
			c := inf.cache
			check := func() error {
				c.mu.RLock()
				defer c.mu.RUnlock()
				table := c.compact.wire
				switch {
				case tc.transform && table != nil:
					return fmt.Errorf("a transformed cache takes the watch's bytes")
				case !tc.transform && table == nil:
					return fmt.Errorf("the compact cache does not take the watch's bytes")
				case table != nil && table.Len() != 0:
					return fmt.Errorf("%d encodings were not taken", table.Len())
				}
				for key, data := range c.compact.items {
					obj, err := c.compact.codec.decode(data)
					if err != nil {
						return fmt.Errorf("%s: %w", key, err)
					}
					if tc.transform != (obj.Data["seen"] == "yes") {
						return fmt.Errorf("%s: cached %v", key, obj.Data)
					}
					if own, err := c.compact.codec.encode(obj); err != nil || !bytes.Equal(own, data) {
						return fmt.Errorf("%s: the stored bytes are not the object's encoding (%v)", key, err)
					}
					if tc.keep == (len(obj.ManagedFields) == 0) {
						return fmt.Errorf("%s: %d managedFields entries cached", key, len(obj.ManagedFields))
					}
				}
				return nil
			}
			if err := check(); err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, fmt.Sprint("cm-", i), metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				cm.Data["k"] = tc.name
				if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			testkit.Eventually(t, 30*time.Second, "the updates cached from the watch's bytes", func() error {
				for i := range 5 {
					got, ok := c.GetByKey(ns + "/cm-" + fmt.Sprint(i))
					if !ok || got.Data["k"] != tc.name {
						return fmt.Errorf("cm-%d cached as %v", i, got)
					}
				}
				return check()
			})
			want, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "cm-0", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.keep {
				want.ManagedFields = nil
			}
			if tc.transform {
				want.Data["seen"] = "yes"
			}
			if got, _ := c.GetByKey(ns + "/cm-0"); !reflect.DeepEqual(got, want) {
				t.Fatalf("cached\n%#v\nserver\n%#v", got, want)
			}
		})
	}
}
