package predicate_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadyctl/steady/event"
	"github.com/steadyctl/steady/predicate"
)

// A reconciler that writes status sees its own write as an update event.
// GenerationChanged drops it, but keeps spec changes.
func ExampleGenerationChanged() {
	p := predicate.GenerationChanged[*appsv1.Deployment]()

	before := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3, ResourceVersion: "100"}}
	statusWritten := before.DeepCopy()
	statusWritten.ResourceVersion = "101"
	statusWritten.Status.ReadyReplicas = 2
	scaled := statusWritten.DeepCopy()
	scaled.ResourceVersion, scaled.Generation = "102", 4

	fmt.Println("status write:", p.Update(event.Update[*appsv1.Deployment]{ObjectOld: before, ObjectNew: statusWritten}))
	fmt.Println("spec change: ", p.Update(event.Update[*appsv1.Deployment]{ObjectOld: statusWritten, ObjectNew: scaled}))
	// Output:
	// status write: false
	// spec change:  true
}

// Combine predicates: reconcile only labelled objects, and only on real changes.
func ExampleAnd() {
	web, _ := predicate.LabelSelector[*appsv1.Deployment](metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}})
	p := predicate.And(web, predicate.GenerationChanged[*appsv1.Deployment]())

	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Labels: map[string]string{"tier": "backend"}}}
	fmt.Println(p.Create(event.Create[*appsv1.Deployment]{Object: d}))
	// Output: false
}

// A controller that cleans up after objects that stop matching must see
// the update that removes their label; NewFilter and LabelSelector judge
// the new object only and would hide it.
func ExampleWasOrIs() {
	mirrored := func(cm *corev1.ConfigMap) bool { return cm.Labels["mirror"] == "true" }
	before := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Labels: map[string]string{"mirror": "true"}}}
	after := before.DeepCopy()
	delete(after.Labels, "mirror")
	removal := event.Update[*corev1.ConfigMap]{ObjectOld: before, ObjectNew: after}

	fmt.Println("NewFilter:", predicate.NewFilter(mirrored).Update(removal))
	fmt.Println("WasOrIs:  ", predicate.WasOrIs(mirrored).Update(removal))
	sel, _ := predicate.LabelSelector[*corev1.ConfigMap](metav1.LabelSelector{MatchLabels: map[string]string{"mirror": "true"}},
		predicate.WithRemovals(true))
	fmt.Println("LabelSelector with removals:", sel.Update(removal))
	// Output:
	// NewFilter: false
	// WasOrIs:   true
	// LabelSelector with removals: true
}
