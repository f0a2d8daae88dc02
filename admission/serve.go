package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"runtime/debug"
	"sync"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

const (
	reviewAPIVersion = "admission.k8s.io/v1"
	reviewKind       = "AdmissionReview"
	// maxPooledBody bounds the buffers kept for reuse, so that one large
	// review does not pin megabytes for the life of the process.
	maxPooledBody = 1 << 20
)

// NewHandler returns an http.Handler that serves h: it takes an
// admission.k8s.io/v1 AdmissionReview in a POST with Content-Type
// application/json, calls h with the Request in its context (see
// RequestFrom), and answers 200 with an AdmissionReview carrying h's
// Response under the request's UID. A request that is not such a review
// is answered 405, 415, 413 (a body larger than the server's
// http.MaxBytesReader allows) or 400, with a plain-text message saying
// what is wrong; the API server then applies the webhook's failurePolicy.
func NewHandler(h Handler, opts ...Option) http.Handler {
	if h == nil {
		h = failing(errors.New("admission: NewHandler: nil Handler"))
	}
	return newServer(func(body []byte) (*Request, struct{}, error) {
		req, err := decodeReview(body)
		return req, struct{}{}, err
	}, func(ctx context.Context, req *Request, _ struct{}) Response {
		return h.Handle(ctx, req)
	}, opts)
}

// server is the HTTP half that every handler of this package shares. A
// typed handler decodes its objects with the review, into D.
type server[D any] struct {
	decode       func(body []byte) (*Request, D, error)
	handle       func(ctx context.Context, req *Request, decoded D) Response
	log          logr.Logger
	logInContext bool // a logger was given: pass it on to handle
}

func newServer[D any](decode func([]byte) (*Request, D, error), handle func(context.Context, *Request, D) Response,
	opts []Option) *server[D] {
	o := newOptions(opts)
	return &server[D]{decode: decode, handle: handle, log: o.log, logInContext: o.log.GetSink() != nil}
}

func (s *server[D]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.reject(w, http.StatusMethodNotAllowed, fmt.Errorf("admission: method %s is not allowed (POST only)", r.Method))
		return
	}
	if ct := r.Header.Get("Content-Type"); !isJSON(ct) {
		s.reject(w, http.StatusUnsupportedMediaType, fmt.Errorf("admission: Content-Type %q is not application/json", ct))
		return
	}
	body, code, err := readBody(r.Body)
	if err != nil {
		s.reject(w, code, err)
		return
	}
	req, decoded, err := s.decode(body.Bytes())
	releaseBody(body) // what the request keeps, it has copied
	if err != nil {
		s.reject(w, http.StatusBadRequest, err)
		return
	}
	ctx := ContextWithRequest(r.Context(), req)
	if s.logInContext {
		ctx = logr.NewContext(ctx, s.log)
	}
	s.write(w, req.UID, s.call(ctx, req, decoded))
}

// call calls the handler and turns a panic into a denial, so that the
// API server gets an answer it can show instead of a dropped connection.
func (s *server[D]) call(ctx context.Context, req *Request, decoded D) (resp Response) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler { // net/http's way to drop the connection on purpose
			panic(v)
		}
		err := fmt.Errorf("admission: handler panicked: %v", v)
		s.log.Error(err, "Admission handler panicked", "uid", req.UID, "operation", req.Operation,
			"kind", req.Kind.Kind, "namespace", req.Namespace, "name", req.Name, "stack", string(debug.Stack()))
		resp = Errored(http.StatusInternalServerError, err)
	}()
	return s.handle(ctx, req, decoded)
}

// jsonPatch is the patch type of every patch sent; responses only point
// at it.
var jsonPatch = admissionv1.PatchTypeJSONPatch

func (s *server[D]) write(w http.ResponseWriter, uid types.UID, resp Response) {
	out := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: reviewAPIVersion, Kind: reviewKind},
		Response: &admissionv1.AdmissionResponse{UID: uid, Allowed: resp.Allowed, Result: resp.Result, Warnings: resp.Warnings},
	}
	if resp.Allowed && len(resp.Patch) > 0 {
		out.Response.Patch, out.Response.PatchType = resp.Patch, &jsonPatch
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(&out); err != nil {
		// The connection is gone or the status is already sent: nothing
		// else can be said to the API server.
		s.log.V(1).Info("Cannot write admission response", "uid", uid, "error", err.Error())
	}
}

// reject answers a request that is not a well-formed review. It is the
// caller's fault (often a webhook configuration asking for another
// admissionReviewVersion), hence V(1).
func (s *server[D]) reject(w http.ResponseWriter, code int, err error) {
	s.log.V(1).Info("Rejected admission request", "code", code, "error", err.Error())
	http.Error(w, err.Error(), code)
}

func isJSON(contentType string) bool {
	if contentType == "application/json" { // what the API server sends
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// bodies holds read buffers for reuse: a decoded Request and its objects
// copy what they keep of the body, the objects' raw JSON included.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody reads a request's body into a buffer from the pool, returning
// the status code to answer with when it fails.
func readBody(body io.Reader) (*bytes.Buffer, int, error) {
	buf := bodies.Get().(*bytes.Buffer)
	if body == nil {
		return buf, 0, nil
	}
	if _, err := buf.ReadFrom(body); err != nil {
		releaseBody(buf)
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			return nil, http.StatusRequestEntityTooLarge,
				fmt.Errorf("admission: request body: larger than %d bytes", tooLarge.Limit)
		}
		return nil, http.StatusBadRequest, fmt.Errorf("admission: reading request body: %w", err)
	}
	return buf, 0, nil
}

func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBody {
		buf.Reset()
		bodies.Put(buf)
	}
}

// admissionReview is the part of an AdmissionReview a handler reads. The
// request's objects stay raw JSON until a typed handler decodes them.
type admissionReview struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Request    *Request `json:"request"`
}

// decodeReview decodes body, case-sensitively as the API server does,
// and checks that it is an admission.k8s.io/v1 review with a request.
func decodeReview(body []byte) (*Request, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("admission: request body: empty")
	}
	var rv admissionReview
	if err := utiljson.Unmarshal(body, &rv); err != nil {
		return nil, fmt.Errorf("admission: request body: %w", err)
	}
	if err := checkReview(rv.APIVersion, rv.Kind, rv.Request); err != nil {
		return nil, err
	}
	return rv.Request, nil
}

// checkReview checks what a decoded review says it is.
func checkReview(apiVersion, kind string, req *Request) error {
	switch {
	case kind != reviewKind:
		return fmt.Errorf("admission: request body: kind %q is not %s", kind, reviewKind)
	case apiVersion != reviewAPIVersion:
		return fmt.Errorf("admission: request body: %s apiVersion %q is not served (%s only)",
			reviewKind, apiVersion, reviewAPIVersion)
	case req == nil:
		return fmt.Errorf("admission: request body: %s has no request", reviewKind)
	case req.UID == "":
		return fmt.Errorf("admission: request body: %s request has no uid", reviewKind)
	}
	return nil
}

// failing is the Handler of a handler that was built wrong: it denies
// every request with err, which names the mistake, and logs it.
func failing(err error) Handler {
	return HandlerFunc(func(ctx context.Context, _ *Request) Response {
		logr.FromContextOrDiscard(ctx).Error(err, "Misconfigured admission handler")
		return Errored(http.StatusInternalServerError, err)
	})
}
