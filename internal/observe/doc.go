// Package observe lets a test watch the controllers of a manager from the
// outside: operatortest's exploration puts Hooks on the context it starts
// a manager with, and every controller started under that context reports
// its reconciles to them and lets them queue requests.
//
// The hooks travel on the context, not in options, because they belong to
// one run of a manager and not to the user's wiring: the same setup func
// builds the controllers of an ordinary test and of every explored run.
// A controller started without Hooks pays nothing for this package.
package observe
