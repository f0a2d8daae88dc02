package shard

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// leaseAPI is what a Ring asks of the API server: the Leases of its
// namespace. Errors from the API server are its status errors (possibly
// wrapped), so apierrors.IsNotFound and the like read them.
type leaseAPI interface {
	Get(ctx context.Context, name string) (*coordinationv1.Lease, error)
	Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
	Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
	Delete(ctx context.Context, name string, pre metav1.Preconditions) error
	List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// leaseCodecs are the encoding a leaseClient needs: coordination.k8s.io/v1
// and the meta options and status types, in a scheme of their own. A
// typed client-go clientset would bring a scheme of every built-in API
// group, and its discovery and OpenAPI stack, into every program that
// imports this package.
type leaseCodecs struct {
	serializer runtime.NegotiatedSerializer
	params     runtime.ParameterCodec
}

// leaseCodecsOnce makes the leaseCodecs on first use.
var leaseCodecsOnce = sync.OnceValues(func() (*leaseCodecs, error) {
	s := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("registering coordination.k8s.io/v1: %w", err)
	}
	// The options, watch event and status types in the core group
	// version "v1" too, where a server's unversioned answers name them.
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return &leaseCodecs{
		serializer: serializer.NewCodecFactory(s).WithoutConversion(),
		params:     runtime.NewParameterCodec(s),
	}, nil
})

// leaseAccept is the Accept header of a leaseClient that speaks protobuf:
// protobuf, or JSON from a server (or proxy) that will not send it.
const leaseAccept = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON

// leaseClient is the leaseAPI of one namespace, over a REST client of
// coordination.k8s.io/v1.
type leaseClient struct {
	rc     rest.Interface
	params runtime.ParameterCodec
	ns     string
}

// newLeaseClient returns the leaseAPI of namespace ns on the API server
// at cfg, which it modifies: pass a copy. It sends through hc (the
// cluster's HTTP client) and speaks protobuf unless cfg names a content
// type.
func newLeaseClient(cfg *rest.Config, hc *http.Client, ns string) (*leaseClient, error) {
	codecs, err := leaseCodecsOnce()
	if err != nil {
		return nil, fmt.Errorf("making the Lease client: %w", err)
	}
	cfg.GroupVersion = &coordinationv1.SchemeGroupVersion
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = codecs.serializer
	if cfg.ContentType == "" {
		cfg.ContentType = runtime.ContentTypeProtobuf
		if cfg.AcceptContentTypes == "" {
			cfg.AcceptContentTypes = leaseAccept
		}
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("making the Lease client for %s: %w", cfg.Host, err)
	}
	return &leaseClient{rc: rc, params: codecs.params, ns: ns}, nil
}

// Get reads Lease name.
func (c *leaseClient) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	out := &coordinationv1.Lease{}
	err := c.rc.Get().Namespace(c.ns).Resource("leases").Name(name).
		VersionedParams(&metav1.GetOptions{}, c.params).
		Do(ctx).Into(out)
	if err != nil {
		return nil, fmt.Errorf("getting Lease %s/%s: %w", c.ns, name, err)
	}
	return out, nil
}

// Create creates l in the client's namespace.
func (c *leaseClient) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	out := &coordinationv1.Lease{}
	err := c.rc.Post().Namespace(c.ns).Resource("leases").
		VersionedParams(&metav1.CreateOptions{}, c.params).
		Body(l).Do(ctx).Into(out)
	if err != nil {
		return nil, fmt.Errorf("creating Lease %s/%s: %w", c.ns, l.Name, err)
	}
	return out, nil
}

// Update replaces l, on the condition that its resourceVersion (and uid,
// if set) are the stored Lease's.
func (c *leaseClient) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	out := &coordinationv1.Lease{}
	err := c.rc.Put().Namespace(c.ns).Resource("leases").Name(l.Name).
		VersionedParams(&metav1.UpdateOptions{}, c.params).
		Body(l).Do(ctx).Into(out)
	if err != nil {
		return nil, fmt.Errorf("updating Lease %s/%s: %w", c.ns, l.Name, err)
	}
	return out, nil
}

// Delete deletes Lease name if it meets pre.
func (c *leaseClient) Delete(ctx context.Context, name string, pre metav1.Preconditions) error {
	err := c.rc.Delete().Namespace(c.ns).Resource("leases").Name(name).
		Body(&metav1.DeleteOptions{Preconditions: &pre}).
		Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("deleting Lease %s/%s: %w", c.ns, name, err)
	}
	return nil
}

// List lists the Leases opts select.
func (c *leaseClient) List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	out := &coordinationv1.LeaseList{}
	err := c.rc.Get().Namespace(c.ns).Resource("leases").
		VersionedParams(&opts, c.params).
		Timeout(timeoutOf(opts)).
		Do(ctx).Into(out)
	if err != nil {
		return nil, fmt.Errorf("listing Leases in %s: %w", c.ns, err)
	}
	return out, nil
}

// Watch watches the Leases opts select, from opts.ResourceVersion.
func (c *leaseClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	w, err := c.rc.Get().Namespace(c.ns).Resource("leases").
		VersionedParams(&opts, c.params).
		Timeout(timeoutOf(opts)).
		Watch(ctx)
	if err != nil {
		return nil, fmt.Errorf("watching Leases in %s: %w", c.ns, err)
	}
	return w, nil
}

// timeoutOf is the client-side timeout of a list or watch: the server's
// TimeoutSeconds, if opts set it; none otherwise.
func timeoutOf(opts metav1.ListOptions) time.Duration {
	if opts.TimeoutSeconds == nil {
		return 0
	}
	return time.Duration(*opts.TimeoutSeconds) * time.Second
}
