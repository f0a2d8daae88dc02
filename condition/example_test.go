package condition_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/condition"
)

// Set reports whether the conditions changed: a reconcile that sets what
// is already there changes nothing, and (in client.ModifyStatus) writes
// nothing. The observed generation follows the object's.
func ExampleSet() {
	// Any object with metadata will do; an operator's own kind carries
	// its conditions in its status.
	obj := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 1}}
	var conditions []metav1.Condition
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available"}

	changed, err := condition.Set(obj, &conditions, ready)
	fmt.Println("first set:", changed, err)
	changed, err = condition.Set(obj, &conditions, ready)
	fmt.Println("same again:", changed, err)
	obj.Generation = 2
	changed, err = condition.Set(obj, &conditions, ready)
	fmt.Println("new generation:", changed, meta.FindStatusCondition(conditions, "Ready").ObservedGeneration)
	_, err = condition.Set(obj, &conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse})
	fmt.Println(err)
	// Output:
	// first set: true <nil>
	// same again: false <nil>
	// new generation: true 2
	// condition: setting "Ready" on shop/web: condition.reason: Required value
}
