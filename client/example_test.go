// Most examples in this file need an API server, so they have no Output
// comment: go test compiles them but does not run them. client_test.go
// runs the same calls against a local control plane (etcd and
// kube-apiserver, when not -short): TestReadsFromCacheWritesToServer
// (Get, List, MatchingIndex, Patch), TestModifyLosesNoConcurrentWrite,
// TestCreateOrUpdate and TestLiveAndDeleteAllOf. ExampleInterface and
// ExampleIgnoreNotFound need no server and run: the first is how a
// reconciler is unit-tested.
package client_test

import (
	"context"
	"fmt"
	"log"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/reconcile"
)

// A client per kind, over the manager's shared caches. Reads wait for
// their cache's first list, so NotFound means the object does not exist,
// not that the cache is still filling.
func ExampleFor() {
	cfg, err := cluster.LoadConfig()
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace("shop"))
	if err != nil {
		log.Fatal(err)
	}
	// "" is the manager's namespace: the cache holds shop only.
	deployments, err := client.For[*appsv1.Deployment](mgr.Factory(), "")
	if err != nil {
		log.Fatal(err)
	}
	ctx := manager.SignalContext(context.Background())
	go func() { _ = mgr.Start(ctx) }() // runs the caches; reconcilers usually read them

	d, err := deployments.Get(ctx, "shop", "web")
	switch {
	case apierrors.IsNotFound(err):
		fmt.Println("no deployment shop/web")
	case err != nil:
		log.Fatal(err) // the cache could not be filled: RBAC, say
	default:
		fmt.Println("web wants", *d.Spec.Replicas, "replicas")
	}
	frontend, err := deployments.List(ctx, client.Matching(object.Selector{Labels: "tier=frontend"}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(frontend), "frontend deployments")
}

// deployments stands for a client made as ExampleFor makes it.
var deployments *client.Client[*appsv1.Deployment]

// An index on the client's informer answers a question the API server
// would need a field selector, or a full list, for: here, which
// Deployments run an image.
func ExampleClient_List() {
	ctx := context.Background()
	// Add indexes before the manager starts.
	err := deployments.Informer().AddIndex("image", func(d *appsv1.Deployment) ([]string, error) {
		var images []string
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
		return images, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// ... start the manager ...
	vulnerable, err := deployments.List(ctx, client.MatchingIndex("image", "nginx:1.25.0"), client.InNamespace("shop"))
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range vulnerable {
		fmt.Println("upgrade", d.Name)
	}
}

// Modify is the read-modify-write of a reconciler, safe against other
// writers: on a conflict it reads again and reapplies the change, and a
// change that is already made writes nothing.
func ExampleClient_Modify() {
	ctx := context.Background()
	d, err := deployments.Modify(ctx, "shop", "web", func(d *appsv1.Deployment) error {
		d.Spec.Replicas = ptr.To[int32](3)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("web at generation", d.Generation)
}

// CreateOrUpdate makes an object match what mutate sets, whether it
// exists yet or not. mutate sets the desired state only: it is given a new
// object on the first run and the stored one on the later runs.
func ExampleClient_CreateOrUpdate() {
	ctx := context.Background()
	app := map[string]string{"app": "web"}
	d, op, err := deployments.CreateOrUpdate(ctx,
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}},
		func(d *appsv1.Deployment) error {
			d.Labels = app
			d.Spec.Replicas = ptr.To[int32](2)
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: app}
			d.Spec.Template.Labels = app
			d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx:1.27"}}
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(op, d.Name) // "created web", then "unchanged web" until someone changes it
}

// CreateOrPatch writes only what mutate changed, and the status through
// its subresource, so a controller that owns a child's spec and its
// status reports both in one call.
func ExampleClient_CreateOrPatch() {
	ctx := context.Background()
	d, op, err := deployments.CreateOrPatch(ctx,
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}},
		func(d *appsv1.Deployment) error {
			d.Spec.Replicas = ptr.To[int32](3)
			d.Status.ObservedGeneration = d.Generation
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
	switch op {
	case client.UpdatedStatus, client.UpdatedStatusOnly:
		fmt.Println("status of", d.Name, "written")
	}
}

// Patch sends only the fields it sets, so it needs no read and cannot
// conflict: for a change that does not depend on the object's state.
func ExampleClient_Patch() {
	ctx := context.Background()
	patch := []byte(`{"metadata":{"annotations":{"example.com/paused-by":"on-call"}}}`)
	if _, err := deployments.Patch(ctx, "shop", "web", types.MergePatchType, patch); err != nil {
		log.Fatal(err)
	}
}

// Live reads the API server instead of the cache, for the rare read that
// must see what was stored a moment ago, by anyone. Each call is a request.
func ExampleClient_Live() {
	ctx := context.Background()
	d, err := deployments.Live().Get(ctx, "shop", "web")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored at resourceVersion", d.ResourceVersion)
}

// keysReconciler records in an annotation which keys a tracked ConfigMap
// holds. It takes a client.Interface, not a *client.Client, so that a unit
// test can hand it a fake.
type keysReconciler struct {
	configMaps client.Interface[*corev1.ConfigMap]
}

func (r keysReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cm, err := r.configMaps.Get(ctx, req.Namespace, req.Name)
	if apierrors.IsNotFound(err) || (err == nil && cm.Labels["example.com/track"] != "true") {
		return reconcile.Result{}, nil // gone, or not ours
	} else if err != nil {
		return reconcile.Result{}, err
	}
	_, err = r.configMaps.Modify(ctx, req.Namespace, req.Name, func(cm *corev1.ConfigMap) error {
		keys := slices.Sorted(maps.Keys(cm.Data))
		metav1.SetMetaDataAnnotation(&cm.ObjectMeta, "example.com/keys", strings.Join(keys, ","))
		return nil
	})
	return reconcile.Result{}, err
}

// fakeConfigMaps is a client.Interface over a map. Embedding the
// interface makes it one without writing every method; one it lacks
// panics when called, which tells the test's author what to add.
type fakeConfigMaps struct {
	client.Interface[*corev1.ConfigMap]
	objects map[types.NamespacedName]*corev1.ConfigMap
	writes  int
}

func (f *fakeConfigMaps) Get(_ context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	cm, ok := f.objects[types.NamespacedName{Namespace: namespace, Name: name}]
	if !ok {
		return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), name)
	}
	return cm, nil
}

// Modify does what Client.Modify does, without the API server: it changes
// a copy, and stores it only if it differs.
func (f *fakeConfigMaps) Modify(ctx context.Context, namespace, name string, mutate func(*corev1.ConfigMap) error) (*corev1.ConfigMap, error) {
	cm, err := f.Get(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	changed := cm.DeepCopy()
	if err := mutate(changed); err != nil {
		return nil, err
	}
	if apiequality.Semantic.DeepEqual(cm, changed) {
		return cm, nil
	}
	f.objects[types.NamespacedName{Namespace: namespace, Name: name}] = changed
	f.writes++
	return changed, nil
}

// A reconciler that takes a client.Interface is unit-tested in
// microseconds, with a fake and no API server. Here a second reconcile of
// the same state writes nothing: the reconciler is idempotent.
func ExampleInterface() {
	prices := types.NamespacedName{Namespace: "shop", Name: "prices"}
	fake := &fakeConfigMaps{objects: map[types.NamespacedName]*corev1.ConfigMap{
		prices: {
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "prices", Labels: map[string]string{"example.com/track": "true"}},
			Data:       map[string]string{"usd": "1.10", "eur": "1.00"},
		},
		{Namespace: "shop", Name: "notes"}: {
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "notes"},
			Data:       map[string]string{"todo": "everything"},
		},
	}}
	r := keysReconciler{configMaps: fake}
	for _, name := range []string{"prices", "notes", "gone", "prices"} {
		req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: name}}
		_, err := r.Reconcile(context.Background(), req)
		fmt.Printf("reconcile %s: error %v, writes so far %d\n", req, err, fake.writes)
	}
	fmt.Println("prices keys:", fake.objects[prices].Annotations["example.com/keys"])
	// Output:
	// reconcile shop/prices: error <nil>, writes so far 1
	// reconcile shop/notes: error <nil>, writes so far 1
	// reconcile shop/gone: error <nil>, writes so far 1
	// reconcile shop/prices: error <nil>, writes so far 1
	// prices keys: eur,usd
}

// A reconciler's read of an object that may have been deleted: NotFound
// ends the reconcile, any other error retries it. IgnoreNotFound sees
// through the context the client and the reconciler wrap around the API
// error, and never takes a cache that could not sync for a missing object.
func ExampleIgnoreNotFound() {
	gone := apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web")
	notSynced := fmt.Errorf("get deployments shop/web: %w", informer.ErrNotSynced)
	for _, err := range []error{
		fmt.Errorf("reconciling shop/web: %w", gone),
		notSynced,
	} {
		fmt.Printf("%v -> %v\n", err, client.IgnoreNotFound(err))
	}
	// Output:
	// reconciling shop/web: deployments.apps "web" not found -> <nil>
	// get deployments shop/web: cache did not sync -> get deployments shop/web: cache did not sync
}
