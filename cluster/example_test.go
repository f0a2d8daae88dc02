// ExampleNew needs an API server, so it has no Output comment: go test
// compiles it but does not run it. The tests of packages informer and
// client (TestFactoryFindsKindsInstalledLater in
// informer/integration_test.go, and every test of client_test.go) make a
// Cluster the same way and run it against a local control plane.
// ExampleKindOf, ExampleThrottle and ExampleCluster_ProtobufFor make no
// request, and run; ExampleLoad and ExampleRegisterFlags depend on the
// machine they run on, so they are compiled only, and load_test.go checks
// each source.
package cluster_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/client"
	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
)

// A Cluster without a manager: for a tool or a test that wants shared
// caches and typed clients, but no controllers, probes or leader election.
// Everything made from one Cluster shares its discovery cache and its
// REST clients.
func ExampleNew() {
	cfg, err := cluster.LoadConfig() // or a testenv.Environment's Config
	if err != nil {
		log.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil { // and your custom resources' AddToScheme
		log.Fatal(err)
	}
	c, err := cluster.New(cfg, cluster.WithScheme(scheme))
	if err != nil {
		log.Fatal(err)
	}
	gvk, err := cluster.KindOf[*appsv1.Deployment](c)
	if err != nil {
		log.Fatal(err)
	}
	mapping, err := c.RESTMapping(gvk) // the first call reads discovery
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(gvk.Kind, "is served as", mapping.Resource.Resource, "scoped to", mapping.Scope.Name())

	f, err := informer.NewFactory(c, informer.WithNamespace("shop"))
	if err != nil {
		log.Fatal(err)
	}
	configMaps, err := client.For[*corev1.ConfigMap](f, "")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { _ = f.Start(ctx) }()
	list, err := configMaps.List(ctx) // waits for the cache's first list
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(list), "config maps in shop")
}

// KindOf maps a Go type to its kind through the cluster's scheme, with no
// request: it is how package informer and package client know what to
// list for a type parameter.
func ExampleKindOf() {
	scheme := runtime.NewScheme() // the kinds the program uses
	if err := errors.Join(appsv1.AddToScheme(scheme), corev1.AddToScheme(scheme)); err != nil {
		log.Fatal(err)
	}
	c, err := cluster.New(&rest.Config{Host: "https://kubernetes.invalid"}, cluster.WithScheme(scheme)) // New makes no request
	if err != nil {
		log.Fatal(err)
	}
	for _, kindOf := range []func(*cluster.Cluster) (schema.GroupVersionKind, error){
		cluster.KindOf[*appsv1.Deployment],
		cluster.KindOf[*corev1.ConfigMap],
	} {
		gvk, err := kindOf(c)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("apiVersion:", gvk.GroupVersion(), "kind:", gvk.Kind)
	}
	// Output:
	// apiVersion: apps/v1 kind: Deployment
	// apiVersion: v1 kind: ConfigMap
}

// An operator's main: --kubeconfig and --context on the command line, then
// $KUBECONFIG, the pod's service account, ~/.kube/config.
func ExampleRegisterFlags() {
	kubeconfig := cluster.RegisterFlags(flag.CommandLine)
	flag.Parse()
	cfg, err := cluster.LoadConfig(kubeconfig)
	if err != nil {
		log.Fatal(err) // lists each source and why it was not used
	}
	fmt.Println("API server:", cfg.Host)
}

// Load says which source it used, for a program that prints it; a
// program with a fallback of its own (a local control plane, say) tells
// "nothing configured" from "configured but broken" with ErrNoConfig.
func ExampleLoad() {
	l, err := cluster.Load(cluster.WithThrottle(cluster.NoThrottle)) // the server's API Priority and Fairness is enough
	switch {
	case errors.Is(err, cluster.ErrNoConfig):
		fmt.Println("no cluster configured:", err)
		return
	case err != nil:
		log.Fatal(err)
	}
	fmt.Printf("using %s at %s\n", l, l.Config.Host) // e.g. using $KUBECONFIG (/home/me/.kube/kind), context "kind-dev" at https://127.0.0.1:6443
}

// The throttles steady names, and what a config without any gets.
func ExampleThrottle() {
	for _, t := range []cluster.Throttle{cluster.DefaultThrottle, cluster.ClientGoThrottle, cluster.NoThrottle} {
		fmt.Println(t)
	}
	t, _ := cluster.ThrottleOf(&rest.Config{}) // client-go's default applies
	fmt.Println("a bare rest.Config:", t)
	// Output:
	// 20 requests/s, burst 30
	// 5 requests/s, burst 10
	// off
	// a bare rest.Config: 5 requests/s, burst 10
}

// A config loaded from a kubeconfig names no content type: the built-in
// kinds then travel as protobuf, as in controller-runtime, and a custom
// resource as JSON (or CBOR, see WithCBOR). Naming JSON keeps JSON.
func ExampleCluster_ProtobufFor() {
	widgets := schema.GroupVersion{Group: "example.com", Version: "v1"} // a custom resource's
	for _, contentType := range []string{"", runtime.ContentTypeJSON} {
		cfg := &rest.Config{Host: "https://127.0.0.1:6443", ContentConfig: rest.ContentConfig{ContentType: contentType}}
		c, err := cluster.New(cfg, cluster.WithScheme(clientgoscheme.Scheme)) // every built-in kind
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("content type %q: core/v1 %v, apps/v1 %v, example.com/v1 %v\n", contentType,
			c.ProtobufFor(corev1.SchemeGroupVersion), c.ProtobufFor(appsv1.SchemeGroupVersion), c.ProtobufFor(widgets))
	}
	// Output:
	// content type "": core/v1 true, apps/v1 true, example.com/v1 false
	// content type "application/json": core/v1 false, apps/v1 false, example.com/v1 false
}
