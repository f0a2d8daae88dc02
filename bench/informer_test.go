package bench

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
)

// memLW serves a prebuilt list and hands out watchers the benchmark drives.
// It satisfies both steady's ListerWatcher and client-go's, and tells
// client-go it cannot stream (otherwise client-go's default WatchList would
// wait forever on it).
type memLW struct {
	list     *corev1.ConfigMapList
	wire     []byte // if set, every List decodes a new list from it, as a client does
	watchers chan *watch.FakeWatcher
}

func newMemLW(list *corev1.ConfigMapList) *memLW {
	return &memLW{list: list, watchers: make(chan *watch.FakeWatcher, 4)}
}

func (l *memLW) List(context.Context, metav1.ListOptions) (k8sruntime.Object, error) {
	if l.wire != nil {
		list := &corev1.ConfigMapList{}
		return list, list.Unmarshal(l.wire)
	}
	return l.list, nil
}
func (l *memLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFakeWithChanSize(1024, false)
	l.watchers <- w
	return w, nil
}

type clientGoLW struct{ *memLW }

func (l clientGoLW) List(o metav1.ListOptions) (k8sruntime.Object, error) {
	return l.memLW.List(context.Background(), o)
}
func (l clientGoLW) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return l.memLW.Watch(context.Background(), o)
}
func (clientGoLW) IsWatchListSemanticsUnSupported() bool { return true }

func configMaps(n int) *corev1.ConfigMapList {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(n)}}
	l.Items = make([]corev1.ConfigMap, n)
	for i := range l.Items {
		l.Items[i].ObjectMeta = metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%10), Name: fmt.Sprintf("cm-%06d", i),
			ResourceVersion: strconv.Itoa(i + 1), Labels: map[string]string{"app": "bench"},
		}
		l.Items[i].Data = map[string]string{"k": "v"}
	}
	return l
}

// informerUnderTest runs one implementation until its handler has seen what
// the benchmark expects; stop ends it and waits.
type informerUnderTest struct {
	lw   *memLW
	seen atomic.Int64
	stop func()
}

func startSteady(lw *memLW) *informerUnderTest {
	return startSteadyWith(lw)
}

// startSteadyShared runs steady's informer with a shared cache
// (informer.WithCompact(false)); the default is compact.
func startSteadyShared(lw *memLW) *informerUnderTest {
	return startSteadyWith(lw, informer.WithCompact(false))
}

func startSteadyWith(lw *memLW, opts ...informer.Option) *informerUnderTest {
	u := &informerUnderTest{lw: lw}
	inf, err := informer.New[*corev1.ConfigMap](u.lw, opts...)
	if err != nil {
		panic(err)
	}
	_, _ = inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		// Counting only: a handler that keeps a pointer into an object (its
		// resourceVersion, say) keeps the whole decoded list alive, which
		// InformerHeap would then count.
		CreateFunc: func(event.Create[*corev1.ConfigMap]) { u.seen.Add(1) },
		UpdateFunc: func(event.Update[*corev1.ConfigMap]) { u.seen.Add(1) },
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Start(ctx) })
	u.stop = func() { cancel(); wg.Wait() }
	return u
}

func startClientGo(lw *memLW) *informerUnderTest {
	u := &informerUnderTest{lw: lw}
	inf := cache.NewSharedIndexInformer(clientGoLW{u.lw}, &corev1.ConfigMap{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { u.seen.Add(1) },
		UpdateFunc: func(_, _ any) { u.seen.Add(1) },
	})
	stopCh := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { inf.Run(stopCh) })
	u.stop = func() { close(stopCh); wg.Wait() }
	return u
}

var impls = []struct {
	name  string
	start func(*memLW) *informerUnderTest
}{{"steady", startSteady}, {"steady-shared", startSteadyShared}, {"client-go", startClientGo}}

// waitSeen spins until the handler has seen n notifications (no sleep: the
// benchmark measures how fast that happens).
func (u *informerUnderTest) waitSeen(n int64) {
	for u.seen.Load() < n {
		runtime.Gosched()
	}
}

// BenchmarkInformerInitialSync: start an informer over an in-memory list and
// wait until one handler has received every object.
func BenchmarkInformerInitialSync(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		list := configMaps(n)
		for _, impl := range impls {
			b.Run(fmt.Sprintf("objects=%d/impl=%s", n, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					u := impl.start(newMemLW(list))
					u.waitSeen(int64(n))
					u.stop()
				}
			})
		}
	}
}

// BenchmarkInformerEvent: the cost of one watch event, from the watch
// channel to the handler, with 10,000 objects cached and events spread over
// 1,000 keys.
func BenchmarkInformerEvent(b *testing.B) {
	const cached, keys = 10_000, 1_000
	list := configMaps(cached)
	events := make([]*corev1.ConfigMap, keys)
	for i := range events {
		events[i] = list.Items[i].DeepCopy()
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			u := impl.start(newMemLW(list))
			defer u.stop()
			w := <-u.lw.watchers
			u.waitSeen(cached)
			b.ReportAllocs()
			b.ResetTimer()
			sent := int64(cached)
			for i := range b.N {
				obj := events[i%keys]
				w.Modify(obj)
				sent++
				if i%512 == 511 { // keep the watch channel from filling
					u.waitSeen(sent)
				}
			}
			u.waitSeen(sent)
		})
	}
}

// BenchmarkInformerCacheBytes reports the heap an informer keeps per cached
// object beyond the objects themselves (which the list already holds and
// both caches share), after garbage collection.
func BenchmarkInformerCacheBytes(b *testing.B) {
	const n = 100_000
	list := configMaps(n)
	for _, impl := range impls {
		if impl.name == "steady" {
			continue // a compact cache is the objects, re-encoded: see BenchmarkInformerHeap
		}
		b.Run("impl="+impl.name, func(b *testing.B) {
			var perObject float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				u := impl.start(newMemLW(list))
				u.waitSeen(n)
				runtime.GC()
				runtime.ReadMemStats(&after)
				perObject = float64(after.HeapAlloc-before.HeapAlloc) / n
				u.stop()
			}
			b.ReportMetric(perObject, "B/object")
		})
	}
}

// BenchmarkInformerHeap reports the heap an informer keeps per cached
// object after its initial list of 10,000 realistic ConfigMaps (labels,
// annotations, an owner, 256 bytes of data; see informer/cache_compact_test.go), decoded
// from protobuf as a client decodes them: the objects themselves included.
func BenchmarkInformerHeap(b *testing.B) {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, w := range wireConfigMaps(compactObjects) {
		list.Items = append(list.Items, *decodeConfigMap(w))
	}
	wire, err := list.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	list = nil
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var perObject float64
			for b.Loop() {
				var u *informerUnderTest
				perObject = retained(compactObjects, func() any {
					u = impl.start(&memLW{wire: wire, watchers: make(chan *watch.FakeWatcher, 4)})
					u.waitSeen(compactObjects)
					return u
				})
				u.stop()
			}
			b.ReportMetric(perObject, "B/object")
		})
	}
}
