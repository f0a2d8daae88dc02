package controller_test

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/steadyctl/steady/event"
)

func eventUpdate(old, new *corev1.ConfigMap) event.Update[*corev1.ConfigMap] {
	return event.Update[*corev1.ConfigMap]{ObjectOld: old, ObjectNew: new}
}
