// Package reconcile defines the contract between a controller and the code
// it runs: a Request names an object, a Reconciler brings the world in line
// with it, and the Result and error say what should happen next.
//
// A controller runs each reconcile with a context that carries its name
// (ControllerName): code the reconciler calls can tell which controller it
// works for, as the client's Server-Side Apply does to name its default
// field manager.
//
// It sits below the handler and controller packages so both can speak of
// requests; package controller re-exports these names.
package reconcile
