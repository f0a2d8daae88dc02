// Package condition sets status conditions, the metav1.Condition list
// that tells users and other controllers how an object is doing, so that
// a reconcile that finds nothing new writes nothing.
//
// Set is apimachinery's meta.SetStatusCondition plus the two things every
// operator adds by hand: it stamps the condition's observedGeneration with
// the object's metadata.generation (so a reader can tell a condition about
// the current spec from one about an older spec), and it refuses a
// condition the API server would refuse, naming it and the object. It
// changes lastTransitionTime only when the status changes, so setting the
// same condition again changes nothing; with client.ModifyStatus, which
// writes only when its mutate function changed the object, a reconcile
// that finds the object as it was costs no request:
//
//	_, err := foos.ModifyStatus(ctx, ns, name, func(foo *v1alpha1.Foo) error {
//		_, err := condition.Set(foo, &foo.Status.Conditions, metav1.Condition{
//			Type: "Ready", Status: metav1.ConditionTrue, Reason: "DeploymentAvailable",
//		})
//		return err
//	})
//
// Reading conditions needs no helper beyond apimachinery's
// (meta.FindStatusCondition, meta.IsStatusConditionTrue), and removing one
// is meta.RemoveStatusCondition.
//
// The package is its own, not part of package object, because conditions
// are not something every object has: they live in the status of the
// kinds that define them. It sits next to package object, at the bottom of
// steady, and imports nothing else of it.
package condition
