package manager_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// run starts m: cancel begins its shutdown, and done receives Start's
// result.
func run(m *manager.Manager) (cancel context.CancelFunc, done <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- m.Start(ctx) }()
	return cancel, result
}

// start runs m until the test ends and checks Start's result.
func start(t *testing.T, m *manager.Manager) (stop func() error) {
	t.Helper()
	cancel, done := run(m)
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				err = fmt.Errorf("Start did not return 30s after cancel")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	return getWithToken(t, url, "")
}

// insecureClient accepts any server certificate: the managers under test
// serve self-signed ones.
var insecureClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}}

// getWithToken requests url with a bearer token, if not empty.
func getWithToken(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := insecureClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestManagerRunsControllersAndServesProbesAndMetrics(t *testing.T) {
	ns := testkit.Namespace(t, "mgr-")
	testkit.CreateConfigMaps(t, testkit.Clientset(t), ns, 0, 5)
	m, err := manager.New(testkit.Env(t).Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns), manager.WithMetricsAddr("127.0.0.1:0"), manager.WithHealthAddr("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	r := &testkit.Keys{}
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	testkit.Eventually(t, 30*time.Second, "5 configmaps reconciled", func() bool { return r.Distinct() == 5 })

	health := "http://" + m.HealthAddr()
	testkit.Eventually(t, 10*time.Second, "/readyz ok", func() bool { code, _ := get(t, health+"/readyz"); return code == 200 })
	if code, body := get(t, health+"/healthz"); code != 200 || body != "ok" {
		t.Fatalf("/healthz: %d %q", code, body)
	}

	// Scraped as a scraper would be, over HTTPS with a token that the API
	// server authenticates and RBAC allows (the admin's).
	code, body := getWithToken(t, "https://"+m.MetricsAddr()+"/metrics", testkit.Env(t).Config.BearerToken)
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	for _, series := range []string{
		`controller_runtime_reconcile_total{controller="configmap",result="success"} 5`,
		`controller_runtime_reconcile_errors_total{controller="configmap"} 0`,
		`controller_runtime_reconcile_time_seconds_count{controller="configmap"} 5`,
		`controller_runtime_max_concurrent_reconciles{controller="configmap"} 1`,
		`controller_runtime_active_workers{controller="configmap"} 0`,
		`workqueue_adds_total{name="configmap"} 5`,
		`workqueue_depth{name="configmap",priority="-100"} 0`, // the initial list's priority
		`steady_reconcile_reasons_total{controller="configmap",reason="initial_list"} 5`,
		`steady_reconcile_reasons_total{controller="configmap",reason="primary_created"} 5`,
		`workqueue_queue_duration_seconds_count{name="configmap"} 5`,
		`workqueue_work_duration_seconds_count{name="configmap"} 5`,
		`workqueue_retries_total{name="configmap"} 0`,
		`steady_informer_cached_objects{informer="configmaps/` + ns + `"} 5`,
		`steady_informer_cache_lag_seconds{informer="configmaps/` + ns + `"} 0`,
		`steady_informer_pending_changes{informer="configmaps/` + ns + `"} 0`,
		`steady_informer_last_received_seconds{informer="configmaps/` + ns + `"} `,
		`steady_reconcile_held_total{controller="configmap"} 0`,
		`steady_reconcile_hold_timeouts_total{controller="configmap"} 0`,
		`steady_own_write_echoes_dropped_total{controller="configmap"} 0`,
		`steady_event_to_reconcile_seconds_count{controller="configmap"} 5`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
	if err := stop(); err != nil {
		t.Fatalf("Start returned %v after a clean shutdown", err)
	}
}

func TestSelectorsRestrictCaches(t *testing.T) {
	env, cs, ns := testkit.Env(t), testkit.Clientset(t), testkit.Namespace(t, "mgr-")
	testkit.CreateConfigMaps(t, cs, ns, 0, 2)
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mine", Labels: map[string]string{"app": "mine"}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), mine, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	configMaps := schema.GroupKind{Kind: "ConfigMap"}
	if _, err := manager.New(env.Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithKind(configMaps, informer.KindOptions{Selector: object.Selector{Labels: "app in ("}})); err == nil ||
		!strings.Contains(err.Error(), `WithKind(ConfigMap): Selector: label selector "app in ("`) {
		t.Fatalf("a bad selector: %v", err)
	}
	m, err := manager.New(env.Config, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns),
		manager.WithKind(configMaps, informer.KindOptions{Selector: object.Selector{Labels: "app=mine"}}))
	if err != nil {
		t.Fatal(err)
	}
	r := &testkit.Keys{}
	if err := builder.ControllerManagedBy(m).For(builder.Kind(&corev1.ConfigMap{})).Complete(r); err != nil {
		t.Fatal(err)
	}
	start(t, m)
	testkit.Eventually(t, 20*time.Second, "mine reconciled", func() bool { return r.Distinct() == 1 })
	for _, s := range m.Factory().Stats() {
		if s.Objects != 1 {
			t.Fatalf("informer %s caches %d objects, want only the selected one", s.Name, s.Objects)
		}
	}
	inf, err := informer.For[*corev1.ConfigMap](m.Factory(), ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if cached, ok := inf.Cache().Get(ns, "mine"); !ok {
		t.Fatal("mine is not cached")
	} else if n := len(cached.ManagedFields); n != 0 {
		t.Fatalf("mine is cached with %d managedFields entries; want none (WithKeepManagedFields is off)", n)
	}
	if !r.Has(ns+"/mine") || r.Distinct() != 1 {
		t.Fatalf("reconciled %v", r.Counts())
	}
}
