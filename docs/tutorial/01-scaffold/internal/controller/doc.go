// Package controller is the StaticSite operator's controller: the
// reconciler, and SetupWithManager, which wires it into a manager the
// same way in main and in the tests.
//
// In this first step the reconciler only reads the StaticSite it is
// asked about; the steps that follow give it work to do.
package controller
