package certs

import (
	"context"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/apiclient"
	"github.com/steadyctl/steady/object"
)

// resource reads and writes one built-in resource the way client-go's
// typed clients do, over a REST client of its group version alone: a
// typed client would link client-go's scheme of every built-in kind into
// every operator that manages its own certificates. Errors are the API
// server's, unwrapped, as a typed client's are: the Authority adds what
// it was doing and to which object.
type resource[T object.Object] struct {
	api      *apiclient.Client
	ns       string // "" for a cluster-scoped resource
	resource string
	newObj   func() T
}

func (r resource[T]) get(ctx context.Context, name string) (T, error) {
	out := r.newObj()
	err := r.api.REST.Get().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.resource).Name(name).
		VersionedParams(&metav1.GetOptions{}, r.api.Params).
		Do(ctx).Into(out)
	return out, err
}

func (r resource[T]) create(ctx context.Context, obj T) (T, error) {
	out := r.newObj()
	err := r.api.REST.Post().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.resource).
		VersionedParams(&metav1.CreateOptions{}, r.api.Params).
		Body(obj).Do(ctx).Into(out)
	return out, err
}

// update replaces obj on the condition that its resourceVersion is the
// stored one's: a conflict means someone else wrote first.
func (r resource[T]) update(ctx context.Context, obj T) (T, error) {
	out := r.newObj()
	err := r.api.REST.Put().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.resource).Name(obj.GetName()).
		VersionedParams(&metav1.UpdateOptions{}, r.api.Params).
		Body(obj).Do(ctx).Into(out)
	return out, err
}

func (r resource[T]) watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	var timeout time.Duration // the server's, if opts set one; none otherwise
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	opts.Watch = true
	return r.api.REST.Get().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.resource).
		VersionedParams(&opts, r.api.Params).
		Timeout(timeout).
		Watch(ctx)
}

// clients are the Authority's typed resources: the Secrets of its
// namespace and the two kinds of webhook configuration.
type clients struct {
	secrets    resource[*corev1.Secret]
	validating resource[*admissionv1.ValidatingWebhookConfiguration]
	mutating   resource[*admissionv1.MutatingWebhookConfiguration]
}

// newClients returns the clients of the Secrets of namespace ns and of
// the webhook configurations on the API server at cfg, sending through hc.
func newClients(cfg *rest.Config, hc *http.Client, ns string) (*clients, error) {
	// One client-side throttle for both group versions, as client-go's
	// clientset has for all of its own.
	cfg, err := apiclient.SharedThrottle(cfg)
	if err != nil {
		return nil, err
	}
	core, err := apiclient.New(cfg, hc, corev1.SchemeGroupVersion, corev1.AddToScheme)
	if err != nil {
		return nil, err
	}
	admission, err := apiclient.New(cfg, hc, admissionv1.SchemeGroupVersion, admissionv1.AddToScheme)
	if err != nil {
		return nil, err
	}
	return &clients{
		secrets: resource[*corev1.Secret]{api: core, ns: ns, resource: "secrets",
			newObj: func() *corev1.Secret { return &corev1.Secret{} }},
		validating: resource[*admissionv1.ValidatingWebhookConfiguration]{api: admission, resource: "validatingwebhookconfigurations",
			newObj: func() *admissionv1.ValidatingWebhookConfiguration {
				return &admissionv1.ValidatingWebhookConfiguration{}
			}},
		mutating: resource[*admissionv1.MutatingWebhookConfiguration]{api: admission, resource: "mutatingwebhookconfigurations",
			newObj: func() *admissionv1.MutatingWebhookConfiguration { return &admissionv1.MutatingWebhookConfiguration{} }},
	}, nil
}
