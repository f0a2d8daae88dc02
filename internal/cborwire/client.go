package cborwire

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// Accept is the Accept header of a Client's requests: CBOR preferred,
// JSON, which every API server serves, as the fallback.
const Accept = runtime.ContentTypeCBOR + ", " + runtime.ContentTypeJSON + ";q=0.9"

// What a Client has seen of its group version on the server.
const (
	unknown   int32 = iota // no answer yet: writes send JSON
	served                 // answered in CBOR
	notServed              // answered in JSON although CBOR was preferred
)

// Client is a REST client of one group version that asks for CBOR. It
// implements rest.Interface; Do encodes write bodies as CBOR where the
// server serves it.
type Client struct {
	rest.Interface
	gv      schema.GroupVersion
	encoder runtime.Encoder // CBOR
	state   atomic.Int32    // unknown, served or notServed
	refused atomic.Bool     // the server answered a CBOR body with 415
}

// New returns a Client for cfg's group version, which must be set, with
// cfg's other settings, sending through hc (the cluster's HTTP client):
// it sets cfg's NegotiatedSerializer to Serializer of scheme and wraps
// hc's transport to watch the answers' content types.
// With dropManagedFields, the objects of its CBOR answers come without
// metadata.managedFields (see Serializer): a client for an informer that
// drops them anyway.
func New(cfg *rest.Config, hc *http.Client, scheme *runtime.Scheme, dropManagedFields bool) (*Client, error) {
	if cfg.GroupVersion == nil {
		return nil, fmt.Errorf("cborwire: no group version in the config")
	}
	c := &Client{gv: *cfg.GroupVersion}
	cfg.NegotiatedSerializer = Serializer(scheme, dropManagedFields)
	enc, err := runtime.NewClientNegotiator(cfg.NegotiatedSerializer, c.gv).Encoder(runtime.ContentTypeCBOR, nil)
	if err != nil {
		return nil, fmt.Errorf("cborwire: CBOR encoder for %s: %w", c.gv, err)
	}
	c.encoder = enc
	// The observer wraps the shared client's transport in a client of its
	// own, which still sends through the shared pool of connections.
	rt := hc.Transport
	if rt == nil { // http.DefaultClient, for a config that needs no transport of its own
		rt = http.DefaultTransport
	}
	watched := &http.Client{Transport: observer{rt, c}, Timeout: hc.Timeout}
	rc, err := rest.RESTClientForConfigAndClient(cfg, watched)
	if err != nil {
		return nil, err
	}
	c.Interface = rc
	return c, nil
}

// Verb begins a request that prefers a CBOR answer.
func (c *Client) Verb(verb string) *rest.Request {
	return c.Interface.Verb(verb).SetHeader("Accept", Accept)
}

// Post begins a POST request that prefers a CBOR answer.
func (c *Client) Post() *rest.Request { return c.Verb(http.MethodPost) }

// Put begins a PUT request that prefers a CBOR answer.
func (c *Client) Put() *rest.Request { return c.Verb(http.MethodPut) }

// Get begins a GET request (or a watch) that prefers a CBOR answer.
func (c *Client) Get() *rest.Request { return c.Verb(http.MethodGet) }

// Delete begins a DELETE request that prefers a CBOR answer.
func (c *Client) Delete() *rest.Request { return c.Verb(http.MethodDelete) }

// Patch begins a PATCH request with a patch of type pt that prefers a
// CBOR answer.
func (c *Client) Patch(pt types.PatchType) *rest.Request {
	return c.Interface.Patch(pt).SetHeader("Accept", Accept)
}

// WritesCBOR reports whether a write's body goes as CBOR now: the server
// has answered the group version in CBOR and never refused a CBOR body.
func (c *Client) WritesCBOR() bool { return c.state.Load() == served && !c.refused.Load() }

// body sets obj as req's body, as CBOR when WritesCBOR, and reports
// whether it did.
func (c *Client) body(req *rest.Request, obj runtime.Object) (*rest.Request, bool, error) {
	if !c.WritesCBOR() {
		return req.Body(obj), false, nil
	}
	var buf bytes.Buffer
	if err := c.encoder.Encode(obj, &buf); err != nil {
		return nil, false, fmt.Errorf("cborwire: encode %T as CBOR for %s: %w", obj, c.gv, err)
	}
	return req.Body(buf.Bytes()).SetHeader("Content-Type", runtime.ContentTypeCBOR), true, nil
}

// Do sends the write that build begins on rc with obj as its body, and
// decodes the answer into out. The body is encoded by rc's config
// (Request.Body) unless rc is a Client, which sends CBOR where the server
// serves it; when the server refuses a CBOR body with 415 Unsupported
// Media Type, the Client writes JSON from then on and Do sends the write
// once more.
func Do(ctx context.Context, rc rest.Interface, obj, out runtime.Object, build func() *rest.Request) error {
	c, ok := rc.(*Client)
	if !ok {
		return build().Body(obj).Do(ctx).Into(out)
	}
	req, cbor, err := c.body(build(), obj)
	if err != nil {
		return err
	}
	err = req.Do(ctx).Into(out)
	if cbor && apierrors.IsUnsupportedMediaType(err) {
		c.refused.Store(true) // the observer has, too; this does not depend on it
		return build().Body(obj).Do(ctx).Into(out)
	}
	return err
}

// observer notes the content type of every answer to a Client's requests.
type observer struct {
	next   http.RoundTripper
	client *Client
}

func (o observer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := o.next.RoundTrip(req)
	if err != nil || req.Header.Get("Accept") != Accept {
		return resp, err
	}
	if resp.StatusCode == http.StatusUnsupportedMediaType && isCBOR(req.Header.Get("Content-Type")) {
		o.client.refused.Store(true)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err // errors may come from a filter that does not negotiate
	}
	switch ct := resp.Header.Get("Content-Type"); {
	case isCBOR(ct):
		o.client.state.Store(served)
	case mediaType(ct) == runtime.ContentTypeJSON:
		o.client.state.Store(notServed)
	}
	return resp, err
}

func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}

func isCBOR(contentType string) bool {
	mt := mediaType(contentType)
	return mt == runtime.ContentTypeCBOR || mt == runtime.ContentTypeCBORSequence
}
