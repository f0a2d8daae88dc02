// Package controller is the StaticSite operator's controller: the
// reconciler, and SetupWithManager, which wires it into a manager the
// same way in main and in the tests.
//
// For each StaticSite the reconciler applies three children, each
// controlled by the site: a ConfigMap holding the pages, a Deployment of
// web servers that serve them, and a Service in front of those.
package controller
