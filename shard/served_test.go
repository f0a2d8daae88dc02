package shard

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/testenv"
)

// kube-apiserver with ShardedListAndWatch serves the selectors of a
// three-member assignment with the default virtual nodes (about 90 ranges
// each): it echoes them in ShardInfo, and sends each member exactly the
// objects the member owns, every object to one member.
func TestSelectorsServedByAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a control plane (etcd and kube-apiserver); skipped under -short")
	}
	ctx := context.Background()
	env, err := testenv.Start(ctx, testenv.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	}()
	ns := env.NewNamespace(t, "shard-")
	cms := env.Clientset.CoreV1().ConfigMaps(ns)
	const n = 150
	for i := range n {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	a := mustAssign(t, []string{"pod-0", "pod-1", "pod-2"}, DefaultVirtualNodes)
	seen := map[string]string{}
	for _, m := range a.Members() {
		sel, err := a.Selector(m, UID)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		list, err := cms.List(ctx, metav1.ListOptions{ShardSelector: sel})
		if err != nil {
			t.Fatalf("member %s: listing with a selector of %d bytes: %v", m, len(sel), err)
		}
		if list.ShardInfo == nil || list.ShardInfo.Selector == "" {
			t.Fatalf("member %s: the list does not echo ShardInfo: the server did not filter", m)
		}
		t.Logf("member %s: %d ranges (%d bytes of selector): %d of %d objects in %v", m, len(a.Ranges(m)), len(sel), len(list.Items), n, time.Since(start).Round(time.Millisecond))
		for _, cm := range list.Items {
			h, _ := HashObject(&cm, UID)
			if owner := a.Owner(h); owner != m {
				t.Fatalf("member %s was sent %s, which %s owns", m, cm.Name, owner)
			}
			if other, dup := seen[cm.Name]; dup {
				t.Fatalf("%s was sent to %s and %s", cm.Name, other, m)
			}
			seen[cm.Name] = m
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{ShardSelector: sel, ResourceVersion: list.ResourceVersion})
		if err != nil {
			t.Fatalf("member %s: watching with its selector: %v", m, err)
		}
		w.Stop()
	}
	if len(seen) != n {
		t.Fatalf("%d of %d objects were sent to a member", len(seen), n)
	}
}
