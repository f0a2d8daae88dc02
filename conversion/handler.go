package conversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NewHandler returns the http.Handler of a conversion webhook for every
// kind in scheme: mount it at the path the CRDs' clientConfig names, on a
// webhook.Server, which bounds the size of requests. One handler serves
// any number of kinds, each converted through its own Hub.
//
// scheme must be complete before the first request, and must not change
// afterwards: the handler remembers each kind's hub. A nil scheme knows
// no kind, so every conversion fails.
func NewHandler(scheme *runtime.Scheme, opts ...Option) http.Handler {
	if scheme == nil {
		scheme = runtime.NewScheme()
	}
	return &handler{scheme: scheme, log: newOptions(opts).log}
}

type handler struct {
	scheme *runtime.Scheme
	log    logr.Logger
	hubs   sync.Map // schema.GroupKind -> hubResult
}

type hubResult struct {
	gvk schema.GroupVersionKind
	err error
}

// hub returns the hub of gk, looked up in the scheme once.
func (h *handler) hub(gk schema.GroupKind) (schema.GroupVersionKind, error) {
	if r, ok := h.hubs.Load(gk); ok {
		return r.(hubResult).gvk, r.(hubResult).err
	}
	gvk, err := hubVersion(h.scheme, gk)
	h.hubs.Store(gk, hubResult{gvk, err})
	return gvk, err
}

// ServeHTTP answers a ConversionReview. A request that is not one is
// answered with a 4xx status and a plain-text reason; a review whose
// objects cannot all be converted is answered 200 with a Failure result,
// which the API server passes on to its client.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, fmt.Sprintf("conversion: method %s not allowed: a ConversionReview is POSTed", r.Method),
			http.StatusMethodNotAllowed)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, fmt.Sprintf("conversion: content type %q not supported: want application/json",
			r.Header.Get("Content-Type")), http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("conversion: request body larger than %d bytes", tooLarge.Limit),
				http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, fmt.Sprintf("conversion: reading the request body: %v", err), http.StatusBadRequest)
		return
	}
	req, err := parseReview(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}

	out, err := h.review(req).encode()
	if err != nil { // json.Marshal of a string and a metav1.Status: not expected
		h.log.Error(err, "encoding the ConversionReview response", "uid", req.UID)
		http.Error(w, fmt.Sprintf("conversion: encoding the response: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// parseReview decodes a ConversionReview and checks what the handler
// needs of it, naming the first thing wrong.
func parseReview(body []byte) (*conversionRequest, error) {
	var review conversionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return nil, fmt.Errorf("conversion: malformed ConversionReview: %w", err)
	}
	switch {
	case review.APIVersion != reviewAPIVersion:
		return nil, fmt.Errorf("conversion: apiVersion %q not supported: want %s (conversionReviewVersions: [\"v1\"])",
			review.APIVersion, reviewAPIVersion)
	case review.Kind != reviewKind:
		return nil, fmt.Errorf("conversion: kind %q is not %s", review.Kind, reviewKind)
	case review.Request == nil:
		return nil, errors.New("conversion: ConversionReview has no request")
	case review.Request.UID == "":
		return nil, errors.New("conversion: ConversionReview has no request.uid")
	case review.Request.DesiredAPIVersion == "":
		return nil, errors.New("conversion: ConversionReview has no request.desiredAPIVersion")
	}
	if _, err := schema.ParseGroupVersion(review.Request.DesiredAPIVersion); err != nil {
		return nil, fmt.Errorf("conversion: request.desiredAPIVersion: %w", err)
	}
	return review.Request, nil
}

// review converts the request's objects, all or nothing.
func (h *handler) review(req *conversionRequest) *conversionResponse {
	resp := &conversionResponse{UID: req.UID, ConvertedObjects: make([]json.RawMessage, 0, len(req.Objects))}
	dst, _ := schema.ParseGroupVersion(req.DesiredAPIVersion) // checked by parseReview
	var last schema.GroupVersionKind
	for i, raw := range req.Objects {
		out, gvk, err := h.convert(i, raw, dst, last)
		if err != nil {
			h.log.Error(err, "conversion failed", "uid", req.UID, "object", i, "desiredAPIVersion", req.DesiredAPIVersion)
			// The API server takes a Failure's objects for nothing; it
			// expects none.
			resp.ConvertedObjects = resp.ConvertedObjects[:0]
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
			return resp
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, out)
		if gvk.GroupVersion() != dst {
			last = gvk
		}
	}
	h.log.V(1).Info("converted", "uid", req.UID, "objects", len(req.Objects), "desiredAPIVersion", req.DesiredAPIVersion)
	resp.Result = metav1.Status{Status: metav1.StatusSuccess}
	return resp
}
