// Package e2e holds what the two children of the end-to-end benchmark
// (bench/cmd/e2e) share, so that the steady and controller-runtime
// controllers differ only in the framework code they call:
//
//   - the reconcile decision (Logic): what a converged object looks like,
//     when to write, and the latency and reconcile bookkeeping;
//   - the kinds reconciled (Kind): ConfigMaps, or the custom resource Widget
//     of package api/v1alpha1, with what the parent needs to create, list
//     and update them;
//   - the client configuration (LoadConfig) and the counting transport that
//     sees every HTTP request a child makes (Counter);
//   - the child's life cycle and its line protocol with the parent (Main,
//     Report): report when the cache has synced, answer "report" on stdin
//     with counters, shut down when stdin closes.
package e2e
