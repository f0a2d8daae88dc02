package informer_test

import (
	"fmt"
	"log"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/object"
)

// A factory of an operator whose RBAC grants two namespaces: its caches
// of namespaced kinds hold those two, each informer fed by one watch per
// namespace. A namespace given twice, or an empty name, is an error of
// NewFactory naming the option. (Making a factory asks the API server
// nothing, so this example runs; TestFactoryCachesExactlyItsNamespaces
// runs the informers against a control plane.)
func ExampleWithNamespaces() {
	c, err := cluster.New(&rest.Config{Host: "https://cluster.example"}, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		log.Fatal(err)
	}
	f, err := informer.NewFactory(c, informer.WithNamespaces("shop", "billing"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Namespaces())
	// informer.For[*corev1.ConfigMap](f, "", object.Selector{}) is now one
	// informer of both namespaces' ConfigMaps.

	_, err = informer.NewFactory(c, informer.WithNamespaces("shop", "shop"))
	fmt.Println(err)
	// Output:
	// [billing shop]
	// informer factory: WithNamespaces("shop", "shop"): namespace "shop" given twice
}

// Per-kind cache settings: the operator's own Secrets only, and ConfigMaps
// of one more namespace, with their data dropped before caching (the
// operator reads their labels only); Events are never cached, so reads of
// them go to the API server.
func ExampleWithKind() {
	c, err := cluster.New(&rest.Config{Host: "https://cluster.example"}, cluster.WithScheme(clientgoscheme.Scheme))
	if err != nil {
		log.Fatal(err)
	}
	f, err := informer.NewFactory(c, informer.WithNamespaces("shop"),
		informer.WithKind(schema.GroupKind{Kind: "Secret"}, informer.KindOptions{
			Selector: object.Selector{Labels: "app.kubernetes.io/managed-by=shop-operator"},
		}),
		informer.WithKind(schema.GroupKind{Kind: "ConfigMap"}, informer.KindOptions{
			Namespaces: []string{"shop", "shared-config"},
			Transform: func(o object.Object) (object.Object, error) {
				if cm, ok := o.(*corev1.ConfigMap); ok { // a typed informer's; ForMetadata's have no data
					cm.Data, cm.BinaryData = nil, nil
				}
				return o, nil
			},
		}),
		informer.WithKind(schema.GroupKind{Kind: "Event", Group: "events.k8s.io"}, informer.KindOptions{Uncached: true}),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Kind(schema.GroupKind{Kind: "ConfigMap"}).Namespaces)
	fmt.Println(f.Kind(schema.GroupKind{Kind: "Secret"}).Selector.Labels)
	fmt.Println(f.Kind(schema.GroupKind{Kind: "Event", Group: "events.k8s.io"}).Uncached)
	// Output:
	// [shared-config shop]
	// app.kubernetes.io/managed-by=shop-operator
	// true
}
