package builder_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/builder"
	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/controller"
	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// requestLog records the requests a manager sends while on, leaving out
// watches, which run all along.
type requestLog struct {
	mu   sync.Mutex
	on   bool
	seen []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return testkit.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		if l.on && r.URL.Query().Get("watch") != "true" {
			l.seen = append(l.seen, r.Method+" "+r.URL.Path)
		}
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (l *requestLog) record(on bool) {
	l.mu.Lock()
	l.on = on
	l.mu.Unlock()
}

func (l *requestLog) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// ownView is what one reconcile read after each of its writes.
type ownView struct {
	before, afterCreate, afterDelete []string // the children List returned
	deletedFound                     bool     // Get found the child it had deleted
	createdFound                     bool     // Get found the child it had created
	took                             time.Duration
	requests                         []string
}

// A reconcile sees its own writes in its next reads, with the caches
// seeing every change 3 s late: the child it creates is in the List that
// follows, and the child it deletes is gone from it, with no request but
// the two writes and no wait. With read-your-writes off the same reads
// answer from the lagging cache, and the test's checks fail.
func TestReconcileReadsItsWrites(t *testing.T) {
	const lag = 3 * time.Second
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("readYourWrites=%v", on), func(t *testing.T) {
			env := testkit.Env(t)
			ns := testkit.Namespace(t, "own-")
			wl, err := env.NewWatchLag(0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(wl.Close)
			log := &requestLog{}
			cfg := rest.CopyConfig(wl.Config)
			cfg.WrapTransport = log.wrap
			mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(ns))
			if err != nil {
				t.Fatal(err)
			}
			secrets, err := client.For[*corev1.Secret](mgr.Factory(), "")
			if err != nil {
				t.Fatal(err)
			}
			views := make(chan ownView, 1)
			r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				log.record(true)
				start := time.Now()
				var v ownView
				list := func() []string {
					kids, err := secrets.List(ctx, client.InNamespace(req.Namespace), client.Matching(object.Selector{Labels: "parent=" + req.Name}))
					if err != nil {
						t.Error(err)
					}
					var names []string
					for _, k := range kids {
						names = append(names, k.Name)
					}
					slices.Sort(names)
					return names
				}
				v.before = list()
				child := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: "made",
					Labels: map[string]string{"parent": req.Name}}}
				if _, err := secrets.Create(ctx, child); err != nil {
					return reconcile.Result{}, err
				}
				v.afterCreate = list()
				_, err := secrets.Get(ctx, req.Namespace, "made")
				v.createdFound = err == nil
				if err := secrets.Delete(ctx, req.Namespace, "old"); err != nil {
					return reconcile.Result{}, err
				}
				v.afterDelete = list()
				_, err = secrets.Get(ctx, req.Namespace, "old")
				v.deletedFound = !apierrors.IsNotFound(err)
				v.took = time.Since(start)
				log.record(false)
				v.requests = log.requests()
				select {
				case views <- v:
				default:
				}
				return reconcile.Result{}, nil
			})
			err = builder.ControllerManagedBy(mgr).For(builder.Kind(&corev1.ConfigMap{})).
				WithOptions(controller.WithReadYourWrites(on)).Complete(r)
			if err != nil {
				t.Fatal(err)
			}
			cs := env.Clientset
			ctx := context.Background()
			old := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "old", Labels: map[string]string{"parent": "p"}}}
			if _, err := cs.CoreV1().Secrets(ns).Create(ctx, old, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			testkit.Run(t, mgr.Start)
			testkit.Eventually(t, 10*time.Second, "the old child in the cache", func() error {
				_, err := secrets.Get(ctx, ns, "old")
				return err
			})
			wl.Set(lag)
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			var v ownView
			select {
			case v = <-views:
			case <-time.After(30 * time.Second):
				t.Fatal("no reconcile of p")
			}
			if !slices.Equal(v.before, []string{"old"}) {
				t.Fatalf("before the writes the reconcile listed %v, want [old]", v.before)
			}
			want := []string{"POST /api/v1/namespaces/" + ns + "/secrets", "DELETE /api/v1/namespaces/" + ns + "/secrets/old"}
			if !slices.Equal(v.requests, want) {
				t.Errorf("the reconcile sent\n%s\nwant only its two writes\n%s", strings.Join(v.requests, "\n"), strings.Join(want, "\n"))
			}
			if v.took > lag/3 {
				t.Errorf("the reconcile took %s: its reads waited", v.took)
			}
			seen := slices.Equal(v.afterCreate, []string{"made", "old"}) && v.createdFound &&
				slices.Equal(v.afterDelete, []string{"made"}) && !v.deletedFound
			if seen != on {
				t.Errorf("read-your-writes %v: after the create the reconcile listed %v (Get found it: %v); after the delete %v (Get found it: %v)",
					on, v.afterCreate, v.createdFound, v.afterDelete, v.deletedFound)
			}
		})
	}
}
