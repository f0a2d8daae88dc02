package reflector

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"
)

// A fake clientset must never be asked to stream: it would ignore
// sendInitialEvents and leave the reflector waiting for a bookmark.
func TestOnlyServerClientsOfferWatchList(t *testing.T) {
	cfg := &rest.Config{Host: "http://127.0.0.1:1"}
	real, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	scheme := runtime.NewScheme()
	_ = metav1.AddMetaToScheme(scheme)
	for name, c := range map[string]struct {
		lw   ListerWatcher
		want bool
	}{
		"typed":         {FromClient(real.CoreV1().ConfigMaps("")), true},
		"typed fake":    {FromClient(fake.NewClientset().CoreV1().ConfigMaps("")), false},
		"dynamic":       {FromDynamic(dyn, gvr, ""), true},
		"dynamic fake":  {FromDynamic(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), gvr, ""), false},
		"metadata":      {FromMetadata(meta, gvr, ""), true},
		"metadata fake": {FromMetadata(metadatafake.NewSimpleMetadataClient(scheme), gvr, ""), false},
	} {
		if got := c.lw.(StreamingLister).SupportsWatchList(); got != c.want {
			t.Errorf("%s: SupportsWatchList() = %v, want %v", name, got, c.want)
		}
	}
}

func TestWatchListModes(t *testing.T) {
	streams := func(c call) bool { return c.watch && c.opts.SendInitialEvents != nil && *c.opts.SendInitialEvents }
	for name, tc := range map[string]struct {
		lw   ListerWatcher
		mode WatchListMode
		want bool
	}{
		"auto, no claim": {newFakeLW(), WatchListAuto, false},
		"auto, claims":   {streamingLW{newFakeLW()}, WatchListAuto, true},
		"off, claims":    {streamingLW{newFakeLW()}, WatchListOff, false},
		"on, no claim":   {newFakeLW(), WatchListOn, true},
	} {
		t.Run(name, func(t *testing.T) {
			var f *fakeLW
			switch lw := tc.lw.(type) {
			case *fakeLW:
				f = lw
			case streamingLW:
				f = lw.fakeLW
			}
			f.onList(cmList("1", ""), nil)
			start(t, tc.lw, WithWatchList(tc.mode))
			if got := streams(f.next(t)); got != tc.want {
				t.Fatalf("first request streams = %v, want %v", got, tc.want)
			}
		})
	}
}
