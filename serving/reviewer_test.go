package serving_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/testkit"
	"github.com/steadyctl/steady/serving"
)

// contentTypes records the Content-Type of each request sent and each
// response received.
type contentTypes struct {
	mu        sync.Mutex
	sent, got []string
	next      http.RoundTripper
}

func (c *contentTypes) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, r.Header.Get("Content-Type"))
	if err == nil {
		c.got = append(c.got, resp.Header.Get("Content-Type"))
	}
	return resp, err
}

// NewReviewer's reviews are the API server's answers: a service
// account's token is that account, a forged one nobody; RBAC allows what
// a Role grants and nothing else. It sends them through the HTTP client
// it is given, in protobuf.
func TestNewReviewer(t *testing.T) {
	ctx, cs := context.Background(), testkit.Clientset(t)
	ns := testkit.Namespace(t, "reviewer-")
	tok := token(t, cs, ns, "reader")
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "reader", Namespace: ns}},
	}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cfg := rest.CopyConfig(testkit.Env(t).Config)
	wire := &contentTypes{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { wire.next = rt; return wire }
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := serving.NewReviewer(testkit.Env(t).Config, hc) // hc, not the config, carries the recorder
	if err != nil {
		t.Fatal(err)
	}

	tr, err := r.ReviewToken(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: tok}})
	if err != nil {
		t.Fatal(err)
	}
	user := "system:serviceaccount:" + ns + ":reader"
	if !tr.Status.Authenticated || tr.Status.User.Username != user || tr.Status.User.UID == "" {
		t.Fatalf("TokenReview of %s's token: %+v, want authenticated as %s with its UID", user, tr.Status, user)
	}
	forged, err := r.ReviewToken(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: "eyJhbGciOiJSUzI1NiJ9.forged.signature"}})
	if err != nil {
		t.Fatal(err)
	}
	if forged.Status.Authenticated {
		t.Fatalf("TokenReview of a forged token: %+v, want not authenticated", forged.Status)
	}

	access := func(verb string) (*authzv1.SubjectAccessReview, error) {
		return r.ReviewAccess(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: tr.Status.User.Username, UID: tr.Status.User.UID, Groups: tr.Status.User.Groups,
			ResourceAttributes: &authzv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: "configmaps"},
		}})
	}
	// The authorizer learns of the RoleBinding through its informers.
	testkit.Eventually(t, 30*time.Second, "get configmaps allowed", func() error {
		got, err := access("get")
		if err != nil {
			return err
		}
		if !got.Status.Allowed || got.Status.Denied {
			return fmt.Errorf("not allowed: %+v", got.Status)
		}
		return nil
	})
	denied, err := access("delete")
	if err != nil {
		t.Fatal(err)
	}
	if denied.Status.Allowed {
		t.Fatalf("SubjectAccessReview of delete configmaps: %+v, want not allowed", denied.Status)
	}

	wire.mu.Lock()
	defer wire.mu.Unlock()
	if len(wire.sent) < 4 {
		t.Fatalf("%d requests through the given HTTP client, want at least 4", len(wire.sent))
	}
	for i := range wire.sent {
		if wire.sent[i] != runtime.ContentTypeProtobuf || !strings.HasPrefix(wire.got[i], runtime.ContentTypeProtobuf) {
			t.Fatalf("request %d sent %q and got %q, want protobuf both ways", i, wire.sent[i], wire.got[i])
		}
	}
}

// A review the API server refuses is an error of the reviewer: here a
// user without permission to create TokenReviews.
func TestNewReviewerForbidden(t *testing.T) {
	cs := testkit.Clientset(t)
	ns := testkit.Namespace(t, "reviewer-")
	cfg := rest.AnonymousClientConfig(testkit.Env(t).Config)
	cfg.BearerToken = token(t, cs, ns, "nobody")
	r, err := serving.NewReviewer(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ReviewToken(context.Background(), &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: "x"}})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("TokenReview without permission: %v, want the API server's Forbidden", err)
	}
}

// NewReviewer refuses a missing config.
func TestNewReviewerErrors(t *testing.T) {
	if _, err := serving.NewReviewer(nil, nil); err == nil || !strings.HasPrefix(err.Error(), "serving: ") {
		t.Fatalf("NewReviewer(nil, nil): %v, want an error of package serving", err)
	}
	bad := &rest.Config{Host: "https://127.0.0.1:1", QPS: 5}
	if _, err := serving.NewReviewer(bad, http.DefaultClient); err == nil || !strings.Contains(err.Error(), "Burst") {
		t.Fatalf("NewReviewer with QPS but no Burst: %v, want an error naming Burst", err)
	}
}
