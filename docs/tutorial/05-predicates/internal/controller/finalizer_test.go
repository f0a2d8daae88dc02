package controller

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/steadyctl/steady/docs/tutorial/05-predicates/api/v1alpha1"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestDNSRecordLivesAndDiesWithTheSite checks that a site's domain is
// published once the site carries the finalizer, and that deleting the
// site removes the record before the site goes.
func TestDNSRecordLivesAndDiesWithTheSite(t *testing.T) {
	env, provider := start(t)
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1alpha1.StaticSite](env)
	if _, err := sites.Create(ctx, newSite(ns, "docs")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the finalizer and the DNS record", func() error {
		s, err := sites.Live().Get(ctx, ns, "docs")
		if err != nil {
			return err
		}
		if !slices.Contains(s.Finalizers, dnsFinalizer) {
			return fmt.Errorf("finalizers %v", s.Finalizers)
		}
		if target, ok := provider.Lookup("docs.example.com"); !ok || target != "docs."+ns+".svc.cluster.local" {
			return fmt.Errorf("record docs.example.com -> %q (%t)", target, ok)
		}
		return nil
	})

	if err := sites.Delete(ctx, ns, "docs"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the site and its record gone", func() error {
		if _, ok := provider.Lookup("docs.example.com"); ok {
			return errors.New("the record is still there")
		}
		if _, err := sites.Live().Get(ctx, ns, "docs"); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the site is still there: %v", err)
		}
		return nil
	})
}

// TestProviderOutageHoldsTheDeletion checks that a site whose record
// cannot be removed stays, marked for deletion, until it can: no record
// is left behind for a domain nobody serves.
func TestProviderOutageHoldsTheDeletion(t *testing.T) {
	env, provider := start(t)
	ctx, ns := t.Context(), env.Namespace
	sites := operatortest.Client[*v1alpha1.StaticSite](env)
	if _, err := sites.Create(ctx, newSite(ns, "wiki")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the DNS record", func() bool {
		_, ok := provider.Lookup("wiki.example.com")
		return ok
	})

	provider.FailRemovals(errors.New("the DNS provider is down"))
	if err := sites.Delete(ctx, ns, "wiki"); err != nil {
		t.Fatal(err)
	}
	testenv.Consistently(t, time.Second, "the site held, marked for deletion, and its record kept", func() error {
		s, err := sites.Live().Get(ctx, ns, "wiki")
		if err != nil {
			return err
		}
		if s.DeletionTimestamp == nil {
			return errors.New("no deletionTimestamp")
		}
		if _, ok := provider.Lookup("wiki.example.com"); !ok {
			return errors.New("the record is gone")
		}
		return nil
	})

	provider.FailRemovals(nil) // the provider is back; the controller's next retry succeeds
	testenv.Eventually(t, 10*time.Second, "the site and its record gone", func() error {
		if _, ok := provider.Lookup("wiki.example.com"); ok {
			return errors.New("the record is still there")
		}
		if _, err := sites.Live().Get(ctx, ns, "wiki"); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the site is still there: %v", err)
		}
		return nil
	})
}
