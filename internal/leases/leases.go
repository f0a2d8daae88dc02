package leases

import (
	"context"
	"fmt"
	"net/http"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/apiclient"
)

// Client reads and writes the Leases of one namespace. Its methods are
// safe for concurrent use.
type Client struct {
	rc     rest.Interface
	params runtime.ParameterCodec
	ns     string
}

// New returns the Client of namespace ns on the API server at cfg, which
// it does not modify, sending through hc (the cluster's HTTP client).
func New(cfg *rest.Config, hc *http.Client, ns string) (*Client, error) {
	c, err := apiclient.New(cfg, hc, coordinationv1.SchemeGroupVersion, coordinationv1.AddToScheme)
	if err != nil {
		return nil, fmt.Errorf("making the Lease client of namespace %s: %w", ns, err)
	}
	return &Client{rc: c.REST, params: c.Params, ns: ns}, nil
}

// Get reads Lease name.
func (c *Client) Get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
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
func (c *Client) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
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
func (c *Client) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
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
func (c *Client) Delete(ctx context.Context, name string, pre metav1.Preconditions) error {
	err := c.rc.Delete().Namespace(c.ns).Resource("leases").Name(name).
		Body(&metav1.DeleteOptions{Preconditions: &pre}).
		Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("deleting Lease %s/%s: %w", c.ns, name, err)
	}
	return nil
}

// List lists the Leases opts select.
func (c *Client) List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error) {
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
func (c *Client) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
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
// TimeoutSeconds, if opts set it; none otherwise, as the caller's context
// bounds it.
func timeoutOf(opts metav1.ListOptions) time.Duration {
	if opts.TimeoutSeconds == nil {
		return 0
	}
	return time.Duration(*opts.TimeoutSeconds) * time.Second
}
