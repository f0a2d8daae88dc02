package informer_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reflector"
)

// atLeast reports whether resourceVersion got is at least want. The API
// says resourceVersions are opaque; kube-apiserver's are etcd revisions,
// which this test relies on to compare them.
func atLeast(got, want string) bool {
	g, err1 := strconv.ParseUint(got, 10, 64)
	w, err2 := strconv.ParseUint(want, 10, 64)
	return err1 == nil && err2 == nil && g >= w
}

// LastSyncResourceVersion reaches the resourceVersion of a write once the
// informer has applied it, and on a resource that stays quiet it still
// advances, through the watch's bookmarks.
func TestLastSyncResourceVersionFollowsWritesAndBookmarks(t *testing.T) {
	ctx, cs := context.Background(), testkit.Clientset(t)
	nss := [2]string{testkit.Namespace(t, "rv-"), testkit.Namespace(t, "rv-")}
	// Short watches: the API server sends a bookmark two seconds before a
	// watch's timeout, so a quiet watch reports progress every few seconds.
	inf, err := informer.New[*corev1.ConfigMap](reflector.FromClient(cs.CoreV1().ConfigMaps(nss[0])),
		informer.WithName("configmaps/"+nss[0]),
		informer.WithReflectorOptions(reflector.WithWatchTimeout(5*time.Second, 6*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inf.Start(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	syncCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if err := inf.WaitForSync(syncCtx); err != nil {
		t.Fatal(err)
	}
	if rv := inf.LastSyncResourceVersion(); rv == "" {
		t.Fatal("LastSyncResourceVersion is empty after the first list")
	}

	written, err := cs.CoreV1().ConfigMaps(nss[0]).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "the informer at the write's resourceVersion", func() bool {
		return atLeast(inf.LastSyncResourceVersion(), written.ResourceVersion)
	})
	if _, ok := inf.Cache().Get(nss[0], "a"); !ok {
		t.Fatalf("LastSyncResourceVersion reached %s before the write was cached", written.ResourceVersion)
	}

	// A write the informer does not see (another namespace) moves the
	// store's resourceVersion; only a bookmark can tell the informer.
	elsewhere, err := cs.CoreV1().ConfigMaps(nss[1]).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "a bookmark past the unseen write", func() bool {
		return atLeast(inf.LastSyncResourceVersion(), elsewhere.ResourceVersion)
	})
	if n := inf.Cache().Len(); n != 1 {
		t.Fatalf("cache holds %d objects, want 1: the other namespace's write leaked in", n)
	}
}
