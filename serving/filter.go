package serving

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/utils/clock"
)

// Filter authenticates and authorizes HTTP requests with the API server.
// Create one with NewFilter; it is safe for concurrent use.
type Filter struct {
	api       Reviewer
	audiences []string
	log       logr.Logger

	users    *decisions[user]    // by token hash
	verdicts *decisions[verdict] // by user, verb and path
}

// user is who a token or client certificate belongs to; a zero name means
// the token was not accepted.
type user struct {
	name   string
	uid    string
	groups []string
	extra  map[string]authzv1.ExtraValue
}

// verdict is a SubjectAccessReview's answer.
type verdict struct {
	allowed bool
	reason  string
}

// Option configures a Filter or a Certificate.
type Option func(*options)

type options struct {
	ttl, deniedTTL time.Duration
	audiences      []string
	log            logr.Logger
	clock          clock.PassiveClock
}

// WithCacheTTL sets how long an accepted token and an allowed decision are
// reused (default one minute) and how long a rejected token or a denied
// decision is (default ten seconds, so that a fixed RoleBinding takes
// effect soon). Zero disables caching of that kind.
func WithCacheTTL(allowed, denied time.Duration) Option {
	return func(o *options) { o.ttl, o.deniedTTL = allowed, denied }
}

// WithAudiences asks TokenReview to accept only tokens issued for one of
// these audiences; by default the API server's own audiences apply.
func WithAudiences(audiences ...string) Option {
	return func(o *options) { o.audiences = audiences }
}

// WithLogger sets the logger for reviews that fail; the default discards.
func WithLogger(log logr.Logger) Option { return func(o *options) { o.log = log } }

// WithClock sets the clock the cache expires entries by; for tests.
func WithClock(c clock.PassiveClock) Option { return func(o *options) { o.clock = c } }

func newOptions(opts []Option) *options {
	o := &options{ttl: time.Minute, deniedTTL: 10 * time.Second, log: logr.Discard(), clock: clock.RealClock{}}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// NewFilter returns a Filter that reviews requests with api, usually
// NewReviewer's.
func NewFilter(api Reviewer, opts ...Option) (*Filter, error) {
	o := newOptions(opts)
	if api == nil {
		return nil, fmt.Errorf("serving: NewFilter needs a client for TokenReview and SubjectAccessReview")
	}
	if o.ttl < 0 || o.deniedTTL < 0 {
		return nil, fmt.Errorf("serving: WithCacheTTL(%v, %v): durations must not be negative", o.ttl, o.deniedTTL)
	}
	return &Filter{
		api:       api,
		audiences: o.audiences,
		log:       o.log,
		users:     newDecisions[user](o.clock, o.ttl, o.deniedTTL),
		verdicts:  newDecisions[verdict](o.clock, o.ttl, o.deniedTTL),
	}, nil
}

// Wrap returns a handler that serves a request with next only when its
// sender is authenticated and allowed the request's verb on its path.
func (f *Filter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := f.authenticate(r)
		if err != nil {
			f.log.Error(err, "Authenticating a request failed", "path", r.URL.Path)
			http.Error(w, "Internal Server Error: authentication failed", http.StatusInternalServerError)
			return
		}
		if u.name == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="kubernetes"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		verb := verbOf(r.Method)
		v, err := f.authorize(r.Context(), u, verb, r.URL.Path)
		if err != nil {
			f.log.Error(err, "Authorizing a request failed", "user", u.name, "verb", verb, "path", r.URL.Path)
			http.Error(w, "Internal Server Error: authorization failed", http.StatusInternalServerError)
			return
		}
		if !v.allowed {
			msg := fmt.Sprintf("Forbidden: user %q cannot %s path %q", u.name, verb, r.URL.Path)
			if v.reason != "" {
				msg += ": " + v.reason
			}
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate returns the request's user: from a verified client
// certificate, or from its bearer token by TokenReview. A request with
// neither, or a token the API server rejects, has the zero user.
func (f *Filter) authenticate(r *http.Request) (user, error) {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
		cert := r.TLS.VerifiedChains[0][0]
		return user{name: cert.Subject.CommonName, groups: cert.Subject.Organization}, nil
	}
	token, ok := bearerToken(r)
	if !ok {
		return user{}, nil
	}
	key := sha256.Sum256([]byte(token)) // the cache keeps no token
	return f.users.get(string(key[:]), func() (user, bool, error) {
		return f.reviewToken(r.Context(), token)
	})
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// errNoAnswer is the error of a review a Reviewer answered with neither a
// review nor an error; a fake one, most likely.
var errNoAnswer = errors.New("the Reviewer returned neither an answer nor an error")

func (f *Filter) reviewToken(ctx context.Context, token string) (user, bool, error) {
	review := &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token, Audiences: f.audiences}}
	got, err := f.api.ReviewToken(ctx, review)
	if err == nil && got == nil {
		err = errNoAnswer
	}
	if err != nil {
		return user{}, false, fmt.Errorf("serving: TokenReview: %w", err)
	}
	if !got.Status.Authenticated || got.Status.User.Username == "" {
		return user{}, false, nil
	}
	u := got.Status.User
	extra := make(map[string]authzv1.ExtraValue, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	return user{name: u.Username, uid: u.UID, groups: u.Groups, extra: extra}, true, nil
}

func (f *Filter) authorize(ctx context.Context, u user, verb, path string) (verdict, error) {
	key := fmt.Sprintf("%q %q %q %q %s %s", u.name, u.uid, u.groups, fmt.Sprint(u.extra), verb, path)
	return f.verdicts.get(key, func() (verdict, bool, error) {
		sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: u.name, UID: u.uid, Groups: u.groups, Extra: u.extra,
			NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
		}}
		got, err := f.api.ReviewAccess(ctx, sar)
		if err == nil && got == nil {
			err = errNoAnswer
		}
		if err != nil {
			return verdict{}, false, fmt.Errorf("serving: SubjectAccessReview of %s %s for %q: %w", verb, path, u.name, err)
		}
		v := verdict{allowed: got.Status.Allowed && !got.Status.Denied, reason: got.Status.Reason}
		if got.Status.EvaluationError != "" && v.reason == "" {
			v.reason = got.Status.EvaluationError
		}
		return v, v.allowed, nil
	})
}

// verbOf is the verb RBAC sees for a request to a non-resource URL: the
// API server uses the lower-cased HTTP method (GET is "get", HEAD "head").
func verbOf(method string) string { return strings.ToLower(method) }
