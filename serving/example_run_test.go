package serving_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/steadyctl/steady/serving"
)

// fakeAPIServer is a Reviewer that knows two tokens, and lets only the
// scraper's service account get /metrics.
func fakeAPIServer() *fake.Clientset {
	api := fake.NewClientset()
	api.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview)
		switch review.Spec.Token {
		case "scraper-token":
			review.Status = authnv1.TokenReviewStatus{Authenticated: true,
				User: authnv1.UserInfo{Username: "system:serviceaccount:monitoring:scraper"}}
		case "dev-token":
			review.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "dev"}}
		}
		return true, review, nil
	})
	api.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		spec := review.Spec
		if spec.User == "system:serviceaccount:monitoring:scraper" &&
			spec.NonResourceAttributes.Verb == "get" && spec.NonResourceAttributes.Path == "/metrics" {
			review.Status.Allowed = true
		} else {
			review.Status.Reason = "no RBAC rule allows it"
		}
		return true, review, nil
	})
	return api
}

// A Filter in front of a metrics handler: no token is 401, a token the
// API server rejects is 401 too, a user RBAC does not allow is 403 with
// the authorizer's reason, and the scraper gets the metrics. Here a fake
// clientset answers the TokenReviews and SubjectAccessReviews that a real
// API server would.
func ExampleFilter_Wrap() {
	filter, err := serving.NewFilter(fakeAPIServer())
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
