// Package controller is the StaticSite operator's controller: the
// reconciler, and SetupWithManager, which wires it into a manager the
// same way in main and in the tests.
//
// For each StaticSite the reconciler applies three children, each
// controlled by the site: a ConfigMap holding the pages, a Deployment of
// web servers that serve them, and a Service in front of those. It
// publishes the site's domain with a DNS provider (package dns), and
// reports the rollout of the web servers in the site's Ready and
// Progressing conditions. A finalizer holds a deleted site until its DNS
// record is removed.
package controller
