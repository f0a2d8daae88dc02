package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
	"github.com/steadyctl/steady/operatortest"
	"github.com/steadyctl/steady/testenv"
)

// TestCopiesFollowTargets runs the operator alone: a source in the test's
// namespace is copied into a target namespace, and the copy goes when the
// namespace stops being a target. Copies cross namespaces, so the manager
// caches all of them, but only the objects in the test's scope.
func TestCopiesFollowTargets(t *testing.T) {
	scope := newScope()
	setup, opts := operatorAlone(scope)
	copiesFollowTargets(scope)(t, operatortest.New(t, setup, opts...))
}

// newScope returns the labels of a fresh run ID, for the same reason as the
// story's: on a control plane shared with other tests, and kept after a
// test (nothing empties a deleted namespace there), the operator must see
// this test's objects only.
func newScope() labels.Set {
	return labels.Set{runLabel: strings.ToLower(rand.Text()[:8])}
}

// operatorAlone returns the wiring of the operator in scope, which makes a
// fresh operator for every manager, and the options of a manager that
// caches every namespace's objects in scope.
func operatorAlone(scope labels.Set) (func(*manager.Manager) error, []operatortest.Option) {
	inScope := object.Selector{Labels: scope.String()}
	setup := func(mgr *manager.Manager) error {
		_, err := newOperator(mgr, scope, io.Discard)
		return err
	}
	return setup, []operatortest.Option{operatortest.WithManagerOptions(manager.WithScheme(clientgoscheme.Scheme), manager.WithNamespace(""), // copies go anywhere
		manager.WithKind(schema.GroupKind{Kind: "ConfigMap"}, informer.KindOptions{Selector: inScope}),
		manager.WithKind(schema.GroupKind{Kind: "Namespace"}, informer.KindOptions{Selector: inScope}))}
}

// copiesFollowTargets returns the story of TestCopiesFollowTargets for the
// operator in scope. Its objects outlive the test's namespace (nothing
// empties a deleted namespace), so it deletes its source, the copy and the
// target namespace when it ends, whatever happened: a later test in the
// same scope must not find them.
func copiesFollowTargets(scope labels.Set) func(testing.TB, *operatortest.Env) {
	return func(t testing.TB, env *operatortest.Env) {
		namespaces, cms := env.Clientset.CoreV1().Namespaces(), env.Clientset.CoreV1().ConfigMaps(env.Namespace)
		ns, err := namespaces.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "mirror-target-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		target := ns.Name
		t.Cleanup(func() {
			ctx := context.Background()
			_ = cms.Delete(ctx, "cfg", metav1.DeleteOptions{})
			_ = env.Clientset.CoreV1().ConfigMaps(target).Delete(ctx, "cfg", metav1.DeleteOptions{})
			_ = namespaces.Delete(ctx, target, metav1.DeleteOptions{})
		})
		setTarget := func(on bool) {
			value := "null"
			if on {
				value = `"true"`
			}
			patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q,%q:%s}}}`, runLabel, scope[runLabel], targetLabel, value)
			if _, err := namespaces.Patch(t.Context(), target, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		setTarget(true)
		src := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "cfg", Labels: labels.Merge(scope, labels.Set{enabledLabel: "true"})},
			Data:       map[string]string{"greeting": "hello"},
		}
		if _, err := cms.Create(t.Context(), src, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 10*time.Second, "a copy in the target", func() error {
			cp, err := env.Clientset.CoreV1().ConfigMaps(target).Get(t.Context(), "cfg", metav1.GetOptions{})
			if err == nil && (!maps.Equal(cp.Data, src.Data) || cp.Annotations[sourceAnnotation] != env.Namespace+"/cfg") {
				err = fmt.Errorf("copy holds %v, annotated %v", cp.Data, cp.Annotations)
			}
			return err
		})
		setTarget(false)
		testenv.Eventually(t, 10*time.Second, "the copy deleted", func() bool {
			_, err := env.Clientset.CoreV1().ConfigMaps(target).Get(t.Context(), "cfg", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
	}
}
