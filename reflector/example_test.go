package reflector_test

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/steadyctl/steady/reflector"
)

// fakeServer stands in for the API server, so the example runs without
// one: List answers with a fixed list and Watch with a watch the example
// drives. Both report what they were asked on lines, beside the store's.
type fakeServer struct {
	list   *corev1.ConfigMapList
	events *watch.FakeWatcher
	lines  chan<- string
}

func (s fakeServer) List(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	s.lines <- fmt.Sprintf("LIST  resourceVersion=%q", opts.ResourceVersion)
	return s.list, nil
}

func (s fakeServer) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.lines <- fmt.Sprintf("WATCH resourceVersion=%q", opts.ResourceVersion)
	return s.events, nil
}

// printStore is a Store that describes each call on its channel. An
// informer's store is a deltafifo.FIFO; this one shows what the reflector
// hands over, and in which order.
type printStore chan<- string

func (s printStore) Add(cm *corev1.ConfigMap) error    { return s.say("add", cm) }
func (s printStore) Update(cm *corev1.ConfigMap) error { return s.say("update", cm) }
func (s printStore) Delete(cm *corev1.ConfigMap) error { return s.say("delete", cm) }
func (s printStore) Resync() error                     { s <- "  resync"; return nil }
func (s printStore) Bookmark(rv string)                { s <- "  bookmark " + rv }

func (s printStore) say(verb string, cm *corev1.ConfigMap) error {
	s <- "  " + verb + " " + cm.Name + " " + cm.ResourceVersion
	return nil
}

func (s printStore) Replace(list []*corev1.ConfigMap, rv string) error {
	var names []string
	for _, cm := range list {
		names = append(names, cm.Name)
	}
	s <- "  replace [" + strings.Join(names, " ") + "] at " + rv
	return nil
}

func configMap(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, ResourceVersion: rv}}
}

// A reflector lists once, hands the whole list to its store as one Replace,
// then watches from the list's resourceVersion, so no change between the
// list and the watch is missed. Bookmarks move the resourceVersion on
// without an object changing, so a later watch can resume from there.
func Example() {
	lines := make(chan string, 10)
	server := fakeServer{
		list: &corev1.ConfigMapList{
			ListMeta: metav1.ListMeta{ResourceVersion: "10"},
			Items:    []corev1.ConfigMap{*configMap("a", "7"), *configMap("b", "9")},
		},
		events: watch.NewFake(),
		lines:  lines,
	}
	r, err := reflector.New[*corev1.ConfigMap](server, printStore(lines))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- r.Start(ctx) }()

	server.events.Add(configMap("c", "11"))
	server.events.Modify(configMap("a", "12"))
	server.events.Delete(configMap("b", "13"))
	server.events.Action(watch.Bookmark, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "14"}})
	for range 7 {
		fmt.Println(<-lines)
	}
	cancel()
	<-stopped // Start returns once every goroutine of the reflector has ended
	fmt.Println("next watch from:", r.LastSyncResourceVersion())
	// Output:
	// LIST  resourceVersion=""
	//   replace [a b] at 10
	// WATCH resourceVersion="10"
	//   add c 11
	//   update a 12
	//   delete b 13
	//   bookmark 14
	// next watch from: 14
}
