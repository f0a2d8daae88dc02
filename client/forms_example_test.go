package client_test

import (
	"context"
	"fmt"
	"log"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
)

// A custom resource without Go types, read from the shared cache and
// written to the API server through the same methods as a typed client's
// (TestUnstructuredClient runs them against a control plane).
func ExampleForUnstructured() {
	ctx := context.Background()
	cfg, err := cluster.LoadConfig()
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace("shop"))
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()

	certs, err := client.ForUnstructured(mgr.Factory(),
		schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}, "")
	if err != nil {
		log.Fatal(err)
	}
	c, err := certs.Modify(ctx, "shop", "web-tls", func(u *unstructured.Unstructured) error {
		return unstructured.SetNestedField(u.Object, "30d", "spec", "renewBefore")
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored at resourceVersion", c.GetResourceVersion())
}

// A metadata-only client caches and reads the metadata of large objects,
// and patches it: here a label on every ConfigMap of the namespace,
// without ever holding their data (TestMetadataClient). Create and Update
// would write an object without its contents: they are errors.
func ExampleForMetadata() {
	ctx := context.Background()
	var f *informer.Factory // the manager's: mgr.Factory()
	configMaps, err := client.ForMetadata(f, corev1.SchemeGroupVersion.WithKind("ConfigMap"), "shop")
	if err != nil {
		log.Fatal(err)
	}
	all, err := configMaps.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, cm := range all {
		if cm.Labels["example.com/audited"] == "true" {
			continue
		}
		patch := []byte(`{"metadata":{"labels":{"example.com/audited":"true"}}}`)
		if _, err := configMaps.Patch(ctx, cm.Namespace, cm.Name, types.MergePatchType, patch); err != nil {
			log.Fatal(err)
		}
	}
	_, err = configMaps.Create(ctx, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "new"}})
	fmt.Println(err != nil) // the metadata API cannot create
}

// Secrets are read, never cached: the operator needs only the get verb on
// them and keeps none in memory. Client reads go to the API server; Live
// is the same for any other kind, for one read (TestUncachedKindNeedsOnlyGet
// in package manager).
func ExampleFor_uncached() {
	ctx := context.Background()
	cfg, err := cluster.LoadConfig()
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace("shop"),
		manager.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{Uncached: true}))
	if err != nil {
		log.Fatal(err)
	}
	secrets, err := client.For[*corev1.Secret](mgr.Factory(), "")
	if err != nil {
		log.Fatal(err)
	}
	s, err := secrets.Get(ctx, "shop", "db-credentials") // a GET request
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(s.Data), "keys; cached:", secrets.Informer() != nil)
}
