package serving_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"

	"github.com/steadyctl/steady/serving"
)

// fakeAPIServer is a Reviewer that knows two tokens, and lets only the
// scraper's service account get /metrics.
type fakeAPIServer struct{}

func (fakeAPIServer) ReviewToken(_ context.Context, review *authnv1.TokenReview) (*authnv1.TokenReview, error) {
	review = review.DeepCopy()
	switch review.Spec.Token {
	case "scraper-token":
		review.Status = authnv1.TokenReviewStatus{Authenticated: true,
			User: authnv1.UserInfo{Username: "system:serviceaccount:monitoring:scraper"}}
	case "dev-token":
		review.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "dev"}}
	}
	return review, nil
}

func (fakeAPIServer) ReviewAccess(_ context.Context, review *authzv1.SubjectAccessReview) (*authzv1.SubjectAccessReview, error) {
	review = review.DeepCopy()
	spec := review.Spec
	if spec.User == "system:serviceaccount:monitoring:scraper" &&
		spec.NonResourceAttributes.Verb == "get" && spec.NonResourceAttributes.Path == "/metrics" {
		review.Status.Allowed = true
	} else {
		review.Status.Reason = "no RBAC rule allows it"
	}
	return review, nil
}

// A Filter in front of a metrics handler: no token is 401, a token the
// API server rejects is 401 too, a user RBAC does not allow is 403 with
// the authorizer's reason, and the scraper gets the metrics. Here a fake
// Reviewer answers the TokenReviews and SubjectAccessReviews that a real
// API server would.
func ExampleFilter_Wrap() {
	filter, err := serving.NewFilter(fakeAPIServer{})
	if err != nil {
		log.Fatal(err)
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "workqueue_depth 0")
	})
	protected := filter.Wrap(metrics)
	for _, token := range []string{"", "stolen-token", "dev-token", "scraper-token"} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		protected.ServeHTTP(w, req)
		fmt.Printf("%-16q %d %s\n", token, w.Code, strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// ""               401 Unauthorized
	// "stolen-token"   401 Unauthorized
	// "dev-token"      403 Forbidden: user "dev" cannot get path "/metrics": no RBAC rule allows it
	// "scraper-token"  200 workqueue_depth 0
}
