package main

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/shard"
	"github.com/steadyctl/steady/testenv"
)

// TestExploreOneReplica explores the sharded operator as one replica of
// its ring: a crash leaves the dead replica's Lease behind, and the fresh
// one must take its requests over once the Lease expires, annotating every
// ConfigMap as before. Explore runs one manager at a time, so the handovers
// between live replicas (TestSharded, TestDeployRBACSuffices) are not
// explored; the replica's identity, which changes with every fresh
// manager, is not compared.
func TestExploreOneReplica(t *testing.T) {
	var n atomic.Int64
	setup := func(mgr *manager.Manager) error {
		id := fmt.Sprintf("replica-%d", n.Add(1))
		ring, err := shard.New(mgr.Cluster(), storyRing, id, shard.WithNamespace(mgr.Namespaces()[0]),
			shard.WithLeaseDuration(storyLease), shard.WithRenewDeadline(storyRenew), shard.WithRetryPeriod(storyRetry))
		if err != nil {
			return err
		}
		cms, err := client.For[*corev1.ConfigMap](mgr.Factory(), "")
		if err != nil {
			return err
		}
		return builder.ControllerManagedBy(mgr).Named("sharded").For(builder.Kind(&corev1.ConfigMap{})).
			Sharded(ring, shard.UID).Complete(&operator{identity: id, cms: cms})
	}
	steps := func(t testing.TB, env *operatortest.Env) {
		cms := operatortest.Client[*corev1.ConfigMap](env)
		for i := range 3 {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace, Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{enabledLabel: "true"}}}
			if _, err := cms.Create(t.Context(), cm); err != nil {
				t.Fatal(err)
			}
		}
		testenv.Eventually(t, 20*time.Second, "all annotated", func() error {
			for i := range 3 {
				cm, err := cms.Live().Get(t.Context(), env.Namespace, fmt.Sprintf("cm-%d", i))
				if err != nil {
					return err
				}
				if cm.Annotations[reconciledByAnnotation] == "" {
					return fmt.Errorf("%s not annotated", cm.Name)
				}
			}
			return nil
		})
	}
	enabled := informer.KindOptions{Selector: object.Selector{Labels: enabledLabel + "=true"}}
	operatortest.Explore(t, setup, steps,
		operatortest.WithManagerOptions(manager.WithScheme(clientgoscheme.Scheme), manager.WithKind(schema.GroupKind{Kind: "ConfigMap"}, enabled)),
		operatortest.WithIgnoredFields("/metadata/annotations/sharded.steady.dev~1reconciled-by"))
}
