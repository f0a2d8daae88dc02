// Package cluster is a connection to one Kubernetes API server: the
// rest.Config, the scheme that maps Go types to kinds, the REST mapper that
// maps kinds to resources, and the REST clients built from them.
//
// # Loading the config
//
// LoadConfig finds the rest.Config as kubectl and controller-runtime do, in
// this order: a --kubeconfig flag (RegisterFlags, or WithKubeconfig),
// $KUBECONFIG (a list of files), the in-cluster config of a pod's service
// account, ~/.kube/config; a --context flag (WithKubeconfigContext)
// chooses a context. Load also says which source it used. A source that
// is present but broken is an error; when none is present the error wraps
// ErrNoConfig and says why each was skipped.
//
//	cfg, err := cluster.LoadConfig()
//
// # Client-side throttling
//
// client-go throttles each client to 5 requests/s (burst 10) unless the
// config says otherwise; an operator's caches, writes and leader election
// easily need more. LoadConfig sets DefaultThrottle (20/s, burst 30, as
// controller-runtime does), and manager.New sets it on a config that has
// no throttling of its own; WithThrottle and manager.WithThrottle
// choose another Throttle: ClientGoThrottle keeps client-go's, NoThrottle
// turns it off for servers that protect themselves with API Priority and
// Fairness (Kubernetes 1.29 and later). New uses its config as given.
//
// Everything in steady that talks to the API server gets its clients from a
// Cluster, so there is one discovery cache and one REST client per API
// group version in a process, however many informers and clients use them:
//
//	c, err := cluster.New(cfg, cluster.WithScheme(scheme))
//	mapping, err := c.RESTMapping(gvk)        // discovery, cached
//	rc, err := c.RESTClientFor(gvk.GroupVersion()) // typed objects of the scheme
//
// UnstructuredRESTClientFor and MetadataRESTClientFor are the same for
// objects as *unstructured.Unstructured (any kind, as the dynamic client
// sees them) and as *metav1.PartialObjectMetadata (the metadata API):
// package client's ForUnstructured and ForMetadata write through them.
//
// Typed clients of the built-in kinds speak protobuf, which they decode
// several times faster than JSON, unless the config names another content
// type: a config that names none gets protobuf for every built-in group
// version (Go types from k8s.io/api; not kinds a program adds to
// client-go's scheme), as controller-runtime's clients do, and
// client-go's default, JSON, for the others (ProtobufFor). A config that
// asks for protobuf still works for custom resources: RESTClientFor sends
// JSON for a group version whose Go types have no protobuf form, as the API
// server serves custom resources as JSON or CBOR only. (A config asking
// for protobuf makes controller-runtime's writes of custom resources fail.)
// Answers are decoded by their content type, and requests accept JSON
// too, so an aggregated API server without protobuf is still read.
//
// # CBOR for custom resources
//
// An API server with the CBORServingAndStorage feature gate (KEP-4222,
// alpha in Kubernetes 1.36) serves custom resources as CBOR too, which
// decodes faster than JSON: a watch stream of 10,000 small custom
// resources in about half the time. RESTClientFor's client of such a
// group version asks for CBOR first and JSON second on every request, so
// servers without the gate answer JSON as before, and decodes whichever
// comes. It writes CBOR bodies once the server has answered that group
// version in CBOR; if the server then refuses one (415 Unsupported Media
// Type), the group version is written as JSON from then on and the write
// is sent again, once (package client's writes do this; a request built
// on the REST client directly with Request.Body sends JSON). Server-side
// apply keeps its own content type.
//
// Only Go types that come back from CBOR as they do from JSON travel as
// CBOR: plain data and apimachinery's metav1.Time, resource.Quantity,
// intstr.IntOrString and the like. A group version with a type holding a
// runtime.RawExtension, an interface value or a type with its own JSON or
// text marshaller stays on JSON. WithCBOR(false) (manager.WithCBOR) keeps
// every group version on JSON. client-go does the same only behind its
// ClientsAllowCBOR and ClientsPreferCBOR feature gates, read from the
// environment; steady needs no environment variable.
//
// CacheClientFor is the client an informer lists and watches with. For an
// informer that drops metadata.managedFields (a Factory's, by default), it
// cuts them out of each CBOR object before decoding it: apimachinery
// decodes every managedFields entry's fieldsV1 and encodes it again as the
// JSON its Go type holds, the larger part of a custom resource's decoding,
// only for the informer to drop it.
//
// The REST mapper reads discovery lazily, one group version at a time
// (GET /api/v1, /apis/<group>/<version>) when a kind of it is first
// mapped, and caches it: an operator that maps a few kinds reads a few
// small documents, not the discovery of every group. When it does not know
// a kind, it reads discovery once more before giving up, so a kind whose
// CustomResourceDefinition was installed after the first look is found
// without a restart. RESTMapper's lookups by resource name, which may
// leave out the group or version, read every group version once.
//
// # Connections
//
// All of a Cluster's clients send through one HTTP client (HTTPClient), so
// they share one pool of connections, and, unless WithHTTP2(true), those
// connections speak HTTP/1.1, where client-go and controller-runtime speak
// HTTP/2 to a TLS server. Go's HTTP/2 client reads every frame of a
// connection on one goroutine and hands it to the reader of its stream,
// and runs each request on a goroutine of its own; over HTTP/1.1 a watch's
// events are read and decoded by one goroutine straight from its
// connection, and a request leaves in one write: less CPU to sync and to
// write, as bench/README.md measures end to end. HTTP/1.1 also
// spreads an operator's connections over the API servers behind a load
// balancer, where one HTTP/2 connection keeps everything on one server.
//
// Over HTTP/1.1 a Cluster makes each plain request (a get, a list, a
// write) on the goroutine that sends it: the request is written and the
// answer's header read there, and the caller reads the body straight from
// the connection. net/http's transport would hand each request to the
// connection's write loop and the answer back from its read loop, three
// goroutines and their wake-ups per request (bench/README.md measures what
// that costs). Watches and other streams, upgrades,
// requests through a proxy, and dialers that hide the socket (client-go's
// certificate rotation for exec plugins and certificate files) stay with
// net/http. Before it reuses an idle connection the Cluster looks at its
// socket, so one the server closed is not written to; as with net/http,
// only a GET or HEAD is sent again when a reused connection dies under it.
// A config's own WrapTransport sits above all this and still sees every
// request; it finds client-go's *http.Transport underneath through
// WrappedRoundTripper, as it would under client-go's transport cache.
//
// What it costs: a connection for each open watch (one per informer) and
// each request in flight, where HTTP/2 carries them all over one; the pool
// keeps up to 100 idle connections, so that a burst of writes does not end
// in closing them and shaking hands again, and closes one idle for 45 s,
// before kube-apiserver closes it (after 90 s): HTTP/1.1 has no GOAWAY to
// say a connection is closing, and a write sent on one that is cannot be
// retried safely. client-go's HTTP/2 connections
// ping the server to find one whose peer is gone (after 30 s without a
// frame; closed if the ping is unanswered for 15 s). A Cluster's HTTP/1.1
// connections send TCP keepalive probes instead (after 15 s idle, 6 probes
// 5 s apart), so a dead one is closed within 45 s too, and on Linux set
// TCP_USER_TIMEOUT to 45 s for data the server never acknowledges, when no
// probes are sent. A config that names its protocols
// (TLSClientConfig.NextProtos) speaks them, with the same care for its
// connections if they are HTTP/1.1 only; one with its own Dial speaks
// HTTP/1.1 through that dialer; one that brings its own Transport is used
// as given.
//
// # Fast paths
//
// Some of what a Cluster does is steady's own wire code, where it is
// faster than client-go's: the HTTP/1.1 exchanges above, the protobuf
// codecs of built-in kinds' lists, watches and writes, CBOR for custom
// resources with managedFields cut before decoding, and the compact caches
// of the informer factories made on it. Each is fuzzed against the
// standard path, and WithFastPaths(false), or STEADY_FAST_PATHS=off in
// the environment (FastPathsEnv), turns them all off: client-go's
// transport and apimachinery's serializers then do everything, and what a
// controller sees does not change. WithoutFastPaths, or
// STEADY_FAST_PATHS=off:http1,compact, turns single ones (FastPath) off.
// bench/README.md says what each path buys.
//
// # What it links
//
// Package cluster links neither client-go's typed clientset nor its
// scheme of every built-in kind (nor, through them, client-go's discovery
// and OpenAPI packages): linking them registers some fifty API groups at
// start, several MiB of memory and milliseconds of CPU in every process.
// A Cluster made without WithScheme knows no Go types; give it the scheme
// of the kinds the program uses, or client-go's kubernetes/scheme.Scheme
// for all the built-in ones. manager.New does the same: it links neither.
//
// A manager makes its Cluster from the rest.Config it is given
// (manager.Manager.Cluster returns it); informer factories and clients take
// it from there.
package cluster
