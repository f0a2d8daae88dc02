package informer_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/object"
)

// A factory's Secret informer over a protobuf config, which decodes the
// watch itself, caches and hands its handlers the server's objects, as
// client-go decodes them, without managedFields; and follows updates and
// deletions.
func TestInformerDecodesProtobufWatches(t *testing.T) {
	cfg := rest.CopyConfig(testkit.Env(t).Config)
	cfg.ContentType = runtime.ContentTypeProtobuf
	ns := testkit.Namespace(t, "wire-")
	cs := testkit.Clientset(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	secret := func(name string, b byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"b": fmt.Sprint(b)}},
			Data: map[string][]byte{"k": {b, 0, 255}}}
	}
	for i := range 20 {
		if _, err := cs.CoreV1().Secrets(ns).Create(ctx, secret(fmt.Sprint("s-", i), byte(i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f := newFactory(t, cfg, clientgoscheme.Scheme)
	inf, err := informer.For[*corev1.Secret](f, ns, object.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	seen, stop := watchSynced(t, ctx, f, inf)
	defer stop()
	defer cancel()
	for i := range 10 {
		if _, err := cs.CoreV1().Secrets(ns).Update(ctx, secret(fmt.Sprint("s-", i), byte(100+i)), metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cs.CoreV1().Secrets(ns).Delete(ctx, fmt.Sprint("s-", 10+i), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, 30*time.Second, "the cache equal to the server's secrets", func() error {
		live, err := cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if n := inf.Cache().Len(); n != len(live.Items) {
			return fmt.Errorf("%d cached, %d on the server", n, len(live.Items))
		}
		for i := range live.Items {
			want := &live.Items[i]
			want.ManagedFields = nil
			got, ok := inf.Cache().GetByKey(object.Key(want))
			handed, _ := seen.get(object.Key(want))
			if !ok || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(handed, want) {
				return fmt.Errorf("%s: cached %v, handed %v, server %v", object.Key(want), got, handed, want)
			}
		}
		return nil
	})
}
