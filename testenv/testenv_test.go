package testenv_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadyctl/steady/testenv"
)

// TestMain checks for leaked goroutines; the tests share one environment,
// which the first of them starts through testenv.Shared.
func TestMain(m *testing.M) { testenv.Main(m) }

func createConfigMap(t *testing.T, c *kubernetes.Clientset, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := c.CoreV1().ConfigMaps("default").Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return cm
}

// nextEvent waits for one event or the end of the watch.
func nextEvent(t *testing.T, w watch.Interface) (watch.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		return ev, ok
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event or close within 30s")
		return watch.Event{}, false
	}
}

func TestCreateListWatch(t *testing.T) {
	ctx := context.Background()
	c := testenv.Shared(t).Clientset
	cms := c.CoreV1().ConfigMaps("default")
	first := createConfigMap(t, c, "clw-first")

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	createConfigMap(t, c, "clw-second")
	ev, ok := nextEvent(t, w)
	if !ok || ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "clw-second" {
		t.Fatalf("watch from RV %s: got %v %#v, want ADDED clw-second", first.ResourceVersion, ev.Type, ev.Object)
	}

	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, cm := range list.Items {
		names[cm.Name] = true
	}
	if !names["clw-first"] || !names["clw-second"] {
		t.Fatalf("list lacks created ConfigMaps: %v", names)
	}
}

func TestKubeconfigFile(t *testing.T) {
	env := testenv.Shared(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", env.KubeconfigPath)
	if err != nil {
		t.Fatalf("loading %s: %v", env.KubeconfigPath, err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("kubeconfig does not reach the API: %v", err)
	}
}

func TestDropConnectionsEndsWatch(t *testing.T) {
	ctx, env := context.Background(), testenv.Shared(t)
	c := env.Clientset
	// From the list's RV: a watch with RV "" would start with synthetic ADDED events.
	list, err := c.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if n := env.DropConnections(); n == 0 {
		t.Fatal("DropConnections cut no connection, but a watch is open")
	}
	for {
		ev, ok := nextEvent(t, w)
		if !ok {
			break // the watch ended
		}
		if ev.Type == watch.Error {
			continue // client-go may report the broken stream before closing
		}
		t.Fatalf("unexpected event after DropConnections: %v", ev.Type)
	}
	// New connections still work.
	createConfigMap(t, c, "after-drop")
}

func TestCompactMakesOldWatchGone(t *testing.T) {
	ctx, env := context.Background(), testenv.Shared(t)
	c := env.Clientset
	old := createConfigMap(t, c, "compact-old")
	for i := range 3 { // history after the old RV, so it is really behind
		createConfigMap(t, c, fmt.Sprintf("compact-new-%d", i))
	}
	rev, err := env.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// In general RVs are opaque; testenv's are etcd revisions, which is what this checks.
	if oldRV, _ := strconv.ParseInt(old.ResourceVersion, 10, 64); rev <= oldRV {
		t.Fatalf("compacted at %d, not past the old RV %d", rev, oldRV)
	}
	w, err := c.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: old.ResourceVersion})
	if err != nil {
		if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
			t.Fatalf("watch from compacted RV: %v, want 410 Gone", err)
		}
		return
	}
	defer w.Stop()
	ev, ok := nextEvent(t, w)
	if !ok || ev.Type != watch.Error {
		t.Fatalf("watch from compacted RV %s: got %v (open=%v), want an error event", old.ResourceVersion, ev.Type, ok)
	}
	err = apierrors.FromObject(ev.Object)
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("watch from compacted RV ended with %v, want 410 Gone", err)
	}
}

func TestRestartAPIServerKeepsObjects(t *testing.T) {
	ctx, env := context.Background(), testenv.Shared(t)
	c := env.Clientset
	want := createConfigMap(t, c, "survives-restart")
	if err := env.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := c.CoreV1().ConfigMaps("default").Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if got.UID != want.UID || got.ResourceVersion != want.ResourceVersion {
		t.Fatalf("after restart got uid=%s rv=%s, want uid=%s rv=%s", got.UID, got.ResourceVersion, want.UID, want.ResourceVersion)
	}
}

func TestTwoEnvironmentsAtOnce(t *testing.T) {
	env := testenv.Shared(t)
	second, err := testenv.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Stop()
	if second.Config.Host == env.Config.Host || second.EtcdURL == env.EtcdURL {
		t.Fatalf("environments share an address: %s/%s vs %s/%s", second.Config.Host, second.EtcdURL, env.Config.Host, env.EtcdURL)
	}
	createConfigMap(t, second.Clientset, "only-in-second")
	_, err = env.Clientset.CoreV1().ConfigMaps("default").Get(context.Background(), "only-in-second", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("object created in the second environment is visible in the first: %v", err)
	}
}
