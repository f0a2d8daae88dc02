package reflector

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

type CM = *corev1.ConfigMap

func cm(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func cmList(rv, cont string, items ...*corev1.ConfigMap) *corev1.ConfigMapList {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont}}
	for _, c := range items {
		l.Items = append(l.Items, *c)
	}
	return l
}

func bookmark(rv string, initialEnd bool) watch.Event {
	c := cm("", rv)
	if initialEnd {
		c.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return watch.Event{Type: watch.Bookmark, Object: c}
}

// call is one request the fake received, and how to answer it.
type call struct {
	opts  metav1.ListOptions
	watch bool
	// answer: exactly one of these is used.
	list runtime.Object
	err  error
	w    *watch.FakeWatcher
}

// fakeLW answers each List and Watch with the next scripted response of its
// kind; once a script runs out, List fails and Watch returns a silent watch.
// Every request is reported on calls.
type fakeLW struct {
	mu      sync.Mutex
	lists   []call
	watches []call
	calls   chan call
}

func newFakeLW() *fakeLW { return &fakeLW{calls: make(chan call, 100)} }

func (f *fakeLW) onList(obj runtime.Object, err error) *fakeLW {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, call{list: obj, err: err})
	return f
}

// onWatch scripts the next watch: a fresh FakeWatcher the test drives, or an error.
func (f *fakeLW) onWatch(err error) *watch.FakeWatcher {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := call{err: err}
	if err == nil {
		c.w = watch.NewFakeWithChanSize(100, false)
	}
	f.watches = append(f.watches, c)
	return c.w
}

func (f *fakeLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	f.mu.Lock()
	var c call
	if len(f.lists) > 0 {
		c, f.lists = f.lists[0], f.lists[1:]
	} else {
		c.err = fmt.Errorf("fakeLW: no list scripted")
	}
	f.mu.Unlock()
	c.opts = opts
	f.calls <- c
	return c.list, c.err
}

func (f *fakeLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	f.mu.Lock()
	var c call
	if len(f.watches) > 0 {
		c, f.watches = f.watches[0], f.watches[1:]
	} else {
		c.w = watch.NewFakeWithChanSize(100, false)
	}
	f.mu.Unlock()
	c.opts, c.watch = opts, true
	f.calls <- c
	if c.err != nil {
		return nil, c.err
	}
	return c.w, nil
}

// streamingLW is a fakeLW that claims WatchList support.
type streamingLW struct{ *fakeLW }

func (streamingLW) SupportsWatchList() bool { return true }

// next waits for the reflector's next request.
func (f *fakeLW) next(t *testing.T) call {
	t.Helper()
	select {
	case c := <-f.calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no list or watch request")
		return call{}
	}
}

// none checks that no request arrives while nothing moves the clock.
func (f *fakeLW) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-f.calls:
		t.Fatalf("unexpected request (watch=%v) %+v", c.watch, c.opts)
	case <-time.After(50 * time.Millisecond):
	}
}

// recStore records what reaches it, as lines such as "replace 10 a,b".
type recStore struct {
	mu    sync.Mutex
	lines []string
	ch    chan string
}

func newRecStore() *recStore { return &recStore{ch: make(chan string, 100)} }

func (s *recStore) rec(line string) error {
	s.mu.Lock()
	s.lines = append(s.lines, line)
	s.mu.Unlock()
	s.ch <- line
	return nil
}
func (s *recStore) Add(o CM) error    { return s.rec("add " + o.Name + " " + o.ResourceVersion) }
func (s *recStore) Update(o CM) error { return s.rec("update " + o.Name + " " + o.ResourceVersion) }
func (s *recStore) Delete(o CM) error { return s.rec("delete " + o.Name + " " + o.ResourceVersion) }
func (s *recStore) Replace(list []CM, rv string) error {
	var names []string
	for _, o := range list {
		names = append(names, o.Name)
	}
	return s.rec("replace " + rv + " " + strings.Join(names, ","))
}
func (s *recStore) Resync() error      { return s.rec("resync") }
func (s *recStore) Bookmark(rv string) { _ = s.rec("bookmark " + rv) }
func (s *recStore) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-s.ch:
		if got != want {
			t.Fatalf("store got %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("store never got %q", want)
	}
}
