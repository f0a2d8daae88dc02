package cluster_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/cluster"
)

// A custom resource's typed client asks for CBOR first, and takes JSON
// from a server that does not serve CBOR; WithCBOR(false) asks for JSON.
// (TestCustomResourcesOverCBOR in package client runs every verb against
// API servers with and without the CBORServingAndStorage gate.)
func ExampleWithCBOR() {
	// A stand-in for an API server without CBOR: it prints what it is
	// asked for and answers JSON.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("Accept:", r.Header.Get("Accept"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"apiVersion":"cluster.steady.dev/v1","kind":"GadgetList","items":[{"metadata":{"name":"g"}}]}`)
	}))
	defer srv.Close()

	scheme := runtime.NewScheme() // as kubebuilder's AddToScheme fills it
	scheme.AddKnownTypeWithName(gadgetGV.WithKind("Gadget"), &gadget{})
	scheme.AddKnownTypeWithName(gadgetGV.WithKind("GadgetList"), &gadgetList{})
	metav1.AddToGroupVersion(scheme, gadgetGV)
	for _, prefer := range []bool{true, false} {
		// CBOR is a fast path: WithFastPaths(true) keeps it whatever
		// STEADY_FAST_PATHS says (off, every client asks for JSON).
		c, err := cluster.New(&rest.Config{Host: srv.URL}, cluster.WithScheme(scheme), cluster.WithCBOR(prefer), cluster.WithFastPaths(true))
		if err != nil {
			log.Fatal(err)
		}
		rc, err := c.RESTClientFor(gadgetGV)
		if err != nil {
			log.Fatal(err)
		}
		var list gadgetList
		if err := rc.Get().Resource("gadgets").Do(context.Background()).Into(&list); err != nil {
			log.Fatal(err)
		}
		fmt.Println("got", list.Items[0].Name)
	}
	// Output:
	// Accept: application/cbor, application/json;q=0.9
	// got g
	// Accept: application/json, */*
	// got g
}
