package serving

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/internal/apiclient"
)

// Reviewer is what a Filter asks of the API server: who a bearer token
// belongs to (a TokenReview) and whether a user may do something (a
// SubjectAccessReview). NewReviewer makes one that asks the API server;
// a test can give a Filter a fake.
//
// Each method sends its review and returns the API server's answer, with
// the Status filled in. Errors are the API server's status errors, which
// apimachinery's errors.IsForbidden and the like read, or the transport's;
// the Filter adds what it was reviewing.
type Reviewer interface {
	// ReviewToken creates tr, a TokenReview of tr.Spec.Token.
	ReviewToken(ctx context.Context, tr *authnv1.TokenReview) (*authnv1.TokenReview, error)
	// ReviewAccess creates sar, a SubjectAccessReview of sar.Spec.
	ReviewAccess(ctx context.Context, sar *authzv1.SubjectAccessReview) (*authzv1.SubjectAccessReview, error)
}

// NewReviewer returns a Reviewer that creates TokenReviews
// (authentication.k8s.io/v1) and SubjectAccessReviews
// (authorization.k8s.io/v1) on the API server at cfg, which it does not
// modify. It sends through hc, a cluster's shared HTTP client, or through
// one made from cfg if hc is nil; cfg.WrapTransport applies only then. It
// speaks protobuf unless cfg names a content type.
//
// It links only those two API groups' types, not client-go's clientset
// and its scheme of every built-in kind.
func NewReviewer(cfg *rest.Config, hc *http.Client) (Reviewer, error) {
	if cfg == nil {
		return nil, errors.New("serving: NewReviewer: nil rest.Config")
	}
	if hc == nil {
		var err error
		if hc, err = rest.HTTPClientFor(cfg); err != nil {
			return nil, fmt.Errorf("serving: HTTP client for %s: %w", cfg.Host, err)
		}
	}
	// One client-side throttle for both group versions, as client-go's
	// clientset has for all of its own.
	cfg, err := apiclient.SharedThrottle(cfg)
	if err != nil {
		return nil, fmt.Errorf("serving: NewReviewer: %w", err)
	}
	authn, err := apiclient.New(cfg, hc, authnv1.SchemeGroupVersion, authnv1.AddToScheme)
	if err != nil {
		return nil, fmt.Errorf("serving: %w", err)
	}
	authz, err := apiclient.New(cfg, hc, authzv1.SchemeGroupVersion, authzv1.AddToScheme)
	if err != nil {
		return nil, fmt.Errorf("serving: %w", err)
	}
	return &reviewer{authn: authn, authz: authz}, nil
}

// reviewer is the Reviewer NewReviewer returns.
type reviewer struct {
	authn, authz *apiclient.Client
}

func (r *reviewer) ReviewToken(ctx context.Context, tr *authnv1.TokenReview) (*authnv1.TokenReview, error) {
	out := &authnv1.TokenReview{}
	err := r.authn.REST.Post().Resource("tokenreviews").
		VersionedParams(&metav1.CreateOptions{}, r.authn.Params).
		Body(tr).Do(ctx).Into(out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (r *reviewer) ReviewAccess(ctx context.Context, sar *authzv1.SubjectAccessReview) (*authzv1.SubjectAccessReview, error) {
	out := &authzv1.SubjectAccessReview{}
	err := r.authz.REST.Post().Resource("subjectaccessreviews").
		VersionedParams(&metav1.CreateOptions{}, r.authz.Params).
		Body(sar).Do(ctx).Into(out)
	if err != nil {
		return nil, err
	}
	return out, nil
}
