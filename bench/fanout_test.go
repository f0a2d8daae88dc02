package bench

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/informer"
)

// fanOut is an informer with ten handlers, each counting notifications.
type fanOut struct {
	lw     *memLW
	counts [10]atomic.Int64
	stop   func()
}

func (f *fanOut) waitAll(n int64) {
	for i := range f.counts {
		for f.counts[i].Load() < n {
			runtime.Gosched()
		}
	}
}

func startSteadyFanOut(list *corev1.ConfigMapList) *fanOut {
	f := &fanOut{lw: newMemLW(list)}
	inf, err := informer.New[*corev1.ConfigMap](f.lw)
	if err != nil {
		panic(err)
	}
	for i := range f.counts {
		c := &f.counts[i]
		_, _ = inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
			CreateFunc: func(event.Create[*corev1.ConfigMap]) { c.Add(1) },
			UpdateFunc: func(event.Update[*corev1.ConfigMap]) { c.Add(1) },
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Start(ctx) })
	f.stop = func() { cancel(); wg.Wait() }
	return f
}

func startClientGoFanOut(list *corev1.ConfigMapList) *fanOut {
	f := &fanOut{lw: newMemLW(list)}
	inf := cache.NewSharedIndexInformer(clientGoLW{f.lw}, &corev1.ConfigMap{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for i := range f.counts {
		c := &f.counts[i]
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { c.Add(1) },
			UpdateFunc: func(_, _ any) { c.Add(1) },
		})
	}
	stopCh := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { inf.Run(stopCh) })
	f.stop = func() { close(stopCh); wg.Wait() }
	return f
}

// BenchmarkInformerFanOut: one watch event delivered to ten handlers, with
// 10,000 objects cached and events spread over 1,000 keys.
func BenchmarkInformerFanOut(b *testing.B) {
	const cached, keys = 10_000, 1_000
	list := configMaps(cached)
	events := make([]*corev1.ConfigMap, keys)
	for i := range events {
		events[i] = list.Items[i].DeepCopy()
	}
	for _, impl := range []struct {
		name  string
		start func(*corev1.ConfigMapList) *fanOut
	}{{"steady", startSteadyFanOut}, {"client-go", startClientGoFanOut}} {
		b.Run("handlers=10/impl="+impl.name, func(b *testing.B) {
			f := impl.start(list)
			defer f.stop()
			w := <-f.lw.watchers
			f.waitAll(cached)
			b.ReportAllocs()
			b.ResetTimer()
			sent := int64(cached)
			for i := range b.N {
				w.Modify(events[i%keys])
				sent++
				if i%512 == 511 {
					f.waitAll(sent)
				}
			}
			f.waitAll(sent)
		})
	}
}
