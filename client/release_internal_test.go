package client

import (
	"context"
	"testing"
	"time"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
)

// A read that found its informer synced, and whose cache the factory then
// emptied on release, asks the informer's successor instead of answering
// NotFound or nothing: the moment between readable and the cache lookup,
// stretched.
func TestReadOfAnEmptiedCacheAsksTheSuccessor(t *testing.T) {
	ns, cs := testkit.Namespace(t, "client-"), testkit.Clientset(t)
	ctx := context.Background()
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Data: map[string]string{"color": "red"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.New(testkit.Env(t).Config, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		t.Fatal(err)
	}
	f, err := informer.NewFactory(cl)
	if err != nil {
		t.Fatal(err)
	}
	c, err := For[*corev1.ConfigMap](f, ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Informer().AddIndex("by-color", func(cm *corev1.ConfigMap) ([]string, error) { return []string{cm.Data["color"]}, nil }); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = f.Start(runCtx) }()
	defer func() { cancel(); <-done }()
	<-f.Started()

	inf, err := c.readable(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{})
	if err != nil {
		t.Fatal(err)
	}
	reg.Remove()
	testkit.Eventually(t, 30*time.Second, "the released cache to be emptied", func() bool { return inf.Cache().Len() == 0 })

	if cm, err := c.get(ctx, inf, ns, "a"); err != nil || cm.Name != "a" {
		t.Errorf("get from the emptied cache: %v, %v; want the object, read from the successor", cm, err)
	}
	opts := []ListOption{MatchingIndex("by-color", "red")}
	if l, err := c.list(ctx, inf, listOptionsOf(opts), opts); err != nil || len(l) != 1 {
		t.Errorf("list from the emptied cache: %d objects, %v; want 1, read from the successor", len(l), err)
	}
}
