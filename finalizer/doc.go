// Package finalizer runs a reconciler that must clean up before its object
// goes: the Kubernetes finalizer protocol, done once, right, in the spirit
// of kube-rs's finalizer().
//
// A finalizer is a name in an object's metadata.finalizers. While it is
// there, deleting the object only marks it (metadata.deletionTimestamp);
// the object goes once the list is empty. An operator that owns something
// outside the cluster — a cloud load balancer, a database user, a DNS
// record — adds its finalizer before it creates the thing, and removes it
// after it deleted the thing, so that no deletion can leave the thing
// behind.
//
// A Reconciler does the bookkeeping around two functions the operator
// writes, Apply and Cleanup:
//
//	r, err := finalizer.New(foos, "foo.example.com/cleanup", finalizer.Funcs[*v1alpha1.Foo]{
//		Apply:   func(ctx context.Context, foo *v1alpha1.Foo) (reconcile.Result, error) { ... },
//		Cleanup: func(ctx context.Context, foo *v1alpha1.Foo) (reconcile.Result, error) { ... },
//	})
//	err = builder.ControllerManagedBy(mgr).For(builder.Kind(&v1alpha1.Foo{})).Complete(r)
//
// On each reconcile it reads the object through its client (a deleted
// object ends the reconcile). An object that is not being deleted gets the
// finalizer first, then Apply; Apply never runs before the finalizer is
// stored, and never on an object being deleted. An object being deleted
// that carries the finalizer gets Cleanup, and the finalizer is removed
// only when Cleanup succeeded: a Cleanup error is returned, so the
// controller retries it with backoff, and the object stays until it
// succeeds. Cleanup may also return a RequeueAfter to say "not done yet,
// look again later" (a cloud resource still deleting) without an error.
//
// Both writes go through client.Modify: a conflict with another writer
// re-reads the object and tries again, a finalizer already there (or
// already gone) writes nothing, and an object deleted meanwhile ends the
// reconcile. Cleanup can therefore run more than once for one deletion —
// when the removal of the finalizer fails after it succeeded, say — and
// must be idempotent, as every reconcile should be.
package finalizer
