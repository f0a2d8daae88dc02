package main

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// stepTimeout bounds each wait of the story.
const stepTimeout = 30 * time.Second

// waitFor polls cond until it returns true, for at most stepTimeout. An
// error from cond ends the wait.
func waitFor(ctx context.Context, what string, cond func(context.Context) (bool, error)) error {
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, stepTimeout, true, cond)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
	case wait.Interrupted(err):
		return fmt.Errorf("timed out after %s waiting for %s", stepTimeout, what)
	default:
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
}

// deployment returns a Deployment of pause, as someone other than the
// operator would create it.
func deployment(namespace, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app": name}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
			},
		},
	}
}

// deleteNamespace deletes the story's namespace. A run that failed half-way
// may leave Foos whose finalizer no operator will remove once this one has
// stopped, which would keep the namespace terminating forever: it releases
// them first.
func deleteNamespace(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, ns string) error {
	left, err := dyn.Resource(fooGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing foos left in %s: %w", ns, err)
	}
	for _, f := range left.Items {
		_, err := dyn.Resource(fooGVR).Namespace(ns).Patch(ctx, f.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("releasing foo %s: %w", f.GetName(), err)
		}
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting namespace %s: %w", ns, err)
	}
	return nil
}
