package informer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reflector"
)

// streamingScriptLW is a scriptLW that streams its lists (WatchList).
type streamingScriptLW struct{ *scriptLW }

func (streamingScriptLW) SupportsWatchList() bool { return true }

// A streamed first list reaches the cache in parts while it arrives, in
// both cache modes: the informer is not synced until the list ends, and
// every handler event of the list is an initial create.
func TestFirstListIsCachedAsItArrives(t *testing.T) {
	for _, compact := range []bool{true, false} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) {
			lw := streamingScriptLW{newScriptLW()}
			inf := mustNew[*corev1.ConfigMap](t, lw, WithName("configmaps"), WithCompact(compact))
			rec := &recorder{}
			reg, err := inf.AddHandler(rec)
			if err != nil {
				t.Fatal(err)
			}
			defer runInformer(t, inf)()
			w := lw.nextWatch(t)
			const n = 1300
			for i := range n {
				w.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("cm", i), ResourceVersion: "5"}})
			}
			testkit.Eventually(t, 10*time.Second, "the list's first parts cached", func() bool { return inf.Cache().Len() >= 1024 })
			if inf.HasSynced() || reg.HasSynced() {
				t.Fatal("synced before the list ended")
			}
			end := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9",
				Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
			w.Action(watch.Bookmark, end)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := inf.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, 10*time.Second, "the handler synced", reg.HasSynced)
			seen := rec.seen()
			if len(seen) != n || inf.Cache().Len() != n {
				t.Fatalf("%d events and %d cached objects, want %d", len(seen), inf.Cache().Len(), n)
			}
			for _, e := range seen {
				if !strings.HasPrefix(e, "create ") || !strings.HasSuffix(e, " true") {
					t.Fatalf("event %q is not an initial create", e)
				}
			}
		})
	}
}

var _ reflector.StreamingLister = streamingScriptLW{}
