package reflector_test

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/deltafifo"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/reflector"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// recordingLW wraps a real ListerWatcher: it records every request and, while
// held, makes new watches wait, as if this one client were cut off.
type recordingLW struct {
	reflector.ListerWatcher
	mu      sync.Mutex
	lists   []metav1.ListOptions
	watches []metav1.ListOptions
	held    chan struct{} // non-nil while watches are held
}

func (l *recordingLW) List(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	l.mu.Lock()
	l.lists = append(l.lists, o)
	l.mu.Unlock()
	return l.ListerWatcher.List(ctx, o)
}

func (l *recordingLW) Watch(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	l.mu.Lock()
	l.watches = append(l.watches, o)
	held := l.held
	l.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return l.ListerWatcher.Watch(ctx, o)
}

func (l *recordingLW) SupportsWatchList() bool { return true }

func (l *recordingLW) hold() {
	l.mu.Lock()
	l.held = make(chan struct{})
	l.mu.Unlock()
}

func (l *recordingLW) release() {
	l.mu.Lock()
	close(l.held)
	l.held = nil
	l.mu.Unlock()
}

func (l *recordingLW) requests() (lists, watches []metav1.ListOptions) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]metav1.ListOptions(nil), l.lists...), append([]metav1.ListOptions(nil), l.watches...)
}

// mirror is the consumer side: what an informer's cache would hold, kept as
// name -> resourceVersion.
type mirror struct {
	mu   sync.Mutex
	objs map[string]*corev1.ConfigMap
}

func (m *mirror) ListKeys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slicesOfKeys(m.objs)
}

func (m *mirror) GetByKey(key string) (*corev1.ConfigMap, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	return o, ok
}

func (m *mirror) rvs() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.objs))
	for k, o := range m.objs {
		out[k] = o.ResourceVersion
	}
	return out
}

func slicesOfKeys(objs map[string]*corev1.ConfigMap) []string {
	keys := make([]string, 0, len(objs))
	for k := range objs {
		keys = append(keys, k)
	}
	return keys
}

// start runs a reflector into a DeltaFIFO whose consumer keeps m, until the
// test ends.
func start(t *testing.T, ns string, opts ...reflector.Option) (*recordingLW, *mirror, *reflector.Reflector[*corev1.ConfigMap]) {
	t.Helper()
	lw := &recordingLW{ListerWatcher: reflector.FromClient(testkit.Clientset(t).CoreV1().ConfigMaps(ns))}
	m := &mirror{objs: map[string]*corev1.ConfigMap{}}
	fifo := deltafifo.New[*corev1.ConfigMap](m)
	r, err := reflector.New[*corev1.ConfigMap](lw, fifo, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = r.Start(ctx) })
	wg.Go(func() {
		for ctx.Err() == nil {
			_ = fifo.Pop(ctx, func(b deltafifo.Batch[*corev1.ConfigMap]) error {
				m.mu.Lock()
				defer m.mu.Unlock()
				for _, it := range b.Items {
					for _, d := range it.Deltas {
						if d.Type == deltafifo.Deleted {
							delete(m.objs, it.Key)
						} else {
							m.objs[it.Key] = d.Object
						}
					}
				}
				return nil
			})
		}
	})
	t.Cleanup(func() { cancel(); fifo.Close(); wg.Wait() })
	return lw, m, r
}

// converge waits until m holds exactly what a consistent LIST returns.
func converge(t *testing.T, m *mirror, ns string) {
	t.Helper()
	cs := testkit.Clientset(t)
	testkit.Eventually(t, 60*time.Second, "the store to match a consistent LIST", func() error {
		list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		want := map[string]string{}
		for _, c := range list.Items {
			want[ns+"/"+c.Name] = c.ResourceVersion
		}
		if got := m.rvs(); !maps.Equal(got, want) {
			return fmt.Errorf("%d objects in the store, %d listed", len(got), len(want))
		}
		return nil
	})
}

// churn creates n ConfigMaps from 8 writers, updating a third and deleting a
// third; writes retry because the tests cut connections and restart the server.
func churn(t *testing.T, ns string, from, n int) {
	t.Helper()
	ctx := context.Background()
	api := testkit.Clientset(t).CoreV1().ConfigMaps(ns)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := from + w; i < from+n; i += 8 {
				name := "cm-" + strconv.Itoa(i)
				must(t, retry(func() error {
					_, err := api.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
					if apierrors.IsAlreadyExists(err) {
						return nil
					}
					return err
				}))
				switch i % 3 {
				case 1:
					must(t, retry(func() error {
						cur, err := api.Get(ctx, name, metav1.GetOptions{})
						if err == nil {
							cur.Data["v"] = "1"
							_, err = api.Update(ctx, cur, metav1.UpdateOptions{})
						}
						return err
					}))
				case 2:
					must(t, retry(func() error {
						if err := api.Delete(ctx, name, metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
							return err
						}
						return nil
					}))
				}
			}
		})
	}
	wg.Wait()
}

func retry(op func() error) error {
	var err error
	for range 150 { // up to ~30s: a server restart on a loaded machine
		if err = op(); err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}
