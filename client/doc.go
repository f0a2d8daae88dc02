// Package client reads objects of one kind from a shared informer cache and
// writes them to the API server.
//
// Reads come from memory: a controller that reads every object on every
// reconcile costs the API server nothing. The price is that the cache lags a
// write by the time its watch event takes to arrive, so a reconciler that
// writes must be ready to see its own write a moment later — which it will,
// as the next event. Writes go straight to the API server, carrying the
// resourceVersion of the object given, so a write based on a stale read
// fails with 409 Conflict instead of losing someone else's change; Namespace
// returns the view that controller.Update and controller.UpdateStatus use to
// retry such writes from a fresh read.
//
//	deployments, err := client.For[*appsv1.Deployment](factory, "")
//	d, err := deployments.Get(ctx, "default", "web")   // from the cache
//	d = d.DeepCopy()                                     // cached objects are shared
//	d.Spec.Replicas = ptr.To[int32](3)
//	d, err = deployments.Update(ctx, d)                  // to the API server
//
// A Client works for any typed kind in the factory's scheme, custom
// resources with Go types included. For kinds without Go types, use the
// dynamic client with informer.ForUnstructured.
package client
