package reflector_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reflector"
)

func TestConvergesUnderChurnWithStreamedList(t *testing.T) {
	ns := testkit.Namespace(t, "refl-")
	churn(t, ns, 0, 90) // objects before the reflector starts
	lw, m, _ := start(t, ns)
	churn(t, ns, 1000, 1000)
	converge(t, m, ns)

	lists, watches := lw.requests()
	first := watches[0]
	if first.SendInitialEvents == nil || !*first.SendInitialEvents || first.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
		t.Fatalf("the first request was not a streamed list: %+v", first)
	}
	if len(lists) != 0 {
		t.Fatalf("kube-apiserver streams lists, yet the reflector fell back to LIST: %+v", lists)
	}
}

func TestConvergesWithPagedLists(t *testing.T) {
	ns := testkit.Namespace(t, "refl-")
	churn(t, ns, 0, 300)
	lw, m, _ := start(t, ns, reflector.WithWatchList(reflector.WatchListOff), reflector.WithPageSize(50))
	churn(t, ns, 1000, 300)
	converge(t, m, ns)
	lists, _ := lw.requests()
	if len(lists) < 3 || lists[1].Continue == "" {
		t.Fatalf("expected a paged list (200 objects, pages of 50): %d requests, second %+v", len(lists), lists)
	}
}

// TestRelistsAfterCompactionWhileCutOff: the reflector's watch is down while
// objects change and are deleted and etcd's history is compacted, so the
// version it would resume from is gone. It must relist — not older than what
// it had — and end with the deletions applied.
func TestRelistsAfterCompactionWhileCutOff(t *testing.T) {
	ns := testkit.Namespace(t, "refl-")
	churn(t, ns, 0, 60)
	lw, m, r := start(t, ns, reflector.WithWatchList(reflector.WatchListOff))
	converge(t, m, ns)
	stale := r.LastSyncResourceVersion()

	env := testkit.Env(t)
	lw.hold()             // this client is cut off...
	env.DropConnections() // ...its open watch breaks
	ctx := context.Background()
	for i := 0; i < 60; i += 2 { // deletions it will not see as events
		_ = testkit.Clientset(t).CoreV1().ConfigMaps(ns).Delete(ctx, "cm-"+strconv.Itoa(i), metav1.DeleteOptions{})
	}
	churn(t, ns, 500, 60)
	if _, err := env.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	lw.release()
	converge(t, m, ns)

	lists, _ := lw.requests()
	relist := lists[len(lists)-1]
	if len(lists) < 2 || relist.ResourceVersion != stale || relist.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
		t.Fatalf("want a relist not older than %s after the 410; lists: %+v", stale, lists)
	}
}

func TestConvergesAcrossAPIServerRestart(t *testing.T) {
	ns := testkit.Namespace(t, "refl-")
	_, m, _ := start(t, ns)
	done := make(chan struct{})
	go func() { defer close(done); churn(t, ns, 0, 400) }()
	if err := testkit.Env(t).RestartAPIServer(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-done
	converge(t, m, ns)
}

// TestWatchTimeoutIsHonoured: each watch asks the server for a timeout within
// the bounds; when it ends, the next watch resumes from the newest version
// seen (bookmarks included) without a new list.
func TestWatchTimeoutIsHonoured(t *testing.T) {
	ns := testkit.Namespace(t, "refl-")
	if _, err := testkit.Clientset(t).CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lw, m, r := start(t, ns, reflector.WithWatchList(reflector.WatchListOff), reflector.WithWatchTimeout(2*time.Second, 3*time.Second))
	converge(t, m, ns)
	testkit.Eventually(t, 30*time.Second, "the watch to be renewed after its timeout", func() bool {
		_, watches := lw.requests()
		return len(watches) >= 3
	})
	lists, watches := lw.requests()
	if len(lists) != 1 {
		t.Fatalf("re-watching after a timeout must not relist: %d lists", len(lists))
	}
	listRV, _ := strconv.ParseInt(lists[0].ResourceVersion, 10, 64)
	prev := listRV
	for i, w := range watches {
		if w.TimeoutSeconds == nil || *w.TimeoutSeconds < 2 || *w.TimeoutSeconds > 3 || !w.AllowWatchBookmarks {
			t.Fatalf("watch %d: timeout %v, bookmarks %v; want 2..3s with bookmarks", i, w.TimeoutSeconds, w.AllowWatchBookmarks)
		}
		// In general RVs are opaque; on this etcd-backed server they are
		// revisions, which lets the test check that progress only goes forward.
		rv, err := strconv.ParseInt(w.ResourceVersion, 10, 64)
		if err != nil || rv < prev {
			t.Fatalf("watch %d resumed from %q, behind %d", i, w.ResourceVersion, prev)
		}
		prev = rv
	}
	if rv, _ := strconv.ParseInt(r.LastSyncResourceVersion(), 10, 64); rv < prev {
		t.Fatalf("LastSyncResourceVersion %d is behind the last watch's %d", rv, prev)
	}
}
