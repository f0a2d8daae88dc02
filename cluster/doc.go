// Package cluster is a connection to one Kubernetes API server: the
// rest.Config, the scheme that maps Go types to kinds, the REST mapper that
// maps kinds to resources, and the REST clients built from them.
//
// Everything in steady that talks to the API server gets its clients from a
// Cluster, so there is one discovery cache and one REST client per API
// group version in a process, however many informers and clients use them
// (and one client-go clientset, Clientset, for the client-go machinery the
// manager uses: leader election and the event recorder):
//
//	c, err := cluster.New(cfg, cluster.WithScheme(scheme))
//	mapping, err := c.RESTMapping(gvk)        // discovery, cached
//	rc, err := c.RESTClientFor(gvk.GroupVersion()) // typed objects of the scheme
//
// The REST mapper reads discovery lazily and caches it. When it does not
// know a kind, it reads discovery once more before giving up, so a kind
// whose CustomResourceDefinition was installed after the first look is
// found without a restart.
//
// A manager makes its Cluster from the rest.Config it is given
// (manager.Manager.Cluster returns it); informer factories and clients take
// it from there.
package cluster
