package condition

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/steadyctl/steady/object"
)

// Set sets c in *conditions, the conditions of obj's status, and reports
// whether that changed them. c's ObservedGeneration is obj's generation.
// A condition of c's type is added if there is none, and otherwise
// updated; its lastTransitionTime is set (to now, unless c gives one) only
// when it is added or its status changes, as meta.SetStatusCondition does.
//
// An invalid c (no type or reason, a status other than True, False or
// Unknown, a reason not in CamelCase: what the API server refuses for
// metav1.Condition) and a nil conditions are errors naming obj; nothing
// changes then.
func Set(obj metav1.Object, conditions *[]metav1.Condition, c metav1.Condition) (bool, error) {
	if conditions == nil {
		return false, fmt.Errorf("condition: setting %q on %s: no conditions to set it in (nil)", c.Type, object.Key(obj))
	}
	c.ObservedGeneration = obj.GetGeneration()
	check := c
	if check.LastTransitionTime.IsZero() {
		check.LastTransitionTime = metav1.NewTime(time.Now()) // what it will be: not the caller's mistake
	}
	if errs := metav1validation.ValidateCondition(check, field.NewPath("condition")); len(errs) > 0 {
		return false, fmt.Errorf("condition: setting %q on %s: %w", c.Type, object.Key(obj), errs.ToAggregate())
	}
	return meta.SetStatusCondition(conditions, c), nil
}
