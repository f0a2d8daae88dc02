package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/steadyctl/steady/examples/internal/demo"
	"github.com/steadyctl/steady/informer"
	"github.com/steadyctl/steady/manager"
	"github.com/steadyctl/steady/object"
)

// runLabel scopes the example to the objects of one run (see newOperator).
const runLabel = "mirror.steady.dev/run"

// sourceName is the ConfigMap the story mirrors.
const sourceName = "app-config"

// summary is what the example observed.
type summary struct {
	Reconciles                int64 // reconciles of source ConfigMaps
	Created, Updated, Deleted int64 // copies written by the operator
	Steps                     int   // story steps whose outcome was verified
}

// story plays the part of the users: it creates namespaces and ConfigMaps
// through the API server and waits for the operator to react.
type story struct {
	cs      kubernetes.Interface
	out     io.Writer
	scope   labels.Set
	created []string // every namespace made, to delete at the end
	targets []string // the target namespaces, in order of creation
	steps   int
	timeout time.Duration
}

// run starts the operator in a manager and plays the story in fresh
// namespaces of the cluster at cfg, which it deletes afterwards.
func run(ctx context.Context, cfg *rest.Config, out io.Writer) (_ summary, err error) {
	out = demo.LockedWriter(out) // reconciles print from the controller's goroutines
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return summary{}, fmt.Errorf("client: %w", err)
	}
	runID := strings.ToLower(rand.Text()[:8])
	s := &story{cs: cs, out: out, scope: labels.Set{runLabel: runID}, timeout: 30 * time.Second}
	fmt.Fprintf(out, "run %s: the operator only touches objects labelled %s=%s\n", runID, runLabel, runID)
	defer s.cleanup(context.WithoutCancel(ctx))

	// The manager caches ConfigMaps and Namespaces of all namespaces: copies
	// go anywhere. If it fails, the story's waits end with its error.
	// Cache only this run's ConfigMaps and Namespaces: on a shared cluster
	// the operator neither holds nor sees anyone else's.
	runOnly := object.Selector{Labels: s.scope.String()}
	m, err := manager.New(cfg, manager.WithScheme(clientgoscheme.Scheme),
		manager.WithKind(schema.GroupKind{Kind: "ConfigMap"}, informer.KindOptions{Selector: runOnly}),
		manager.WithKind(schema.GroupKind{Kind: "Namespace"}, informer.KindOptions{Selector: runOnly}))
	if err != nil {
		return summary{}, fmt.Errorf("manager: %w", err)
	}
	op, err := newOperator(m, s.scope, out)
	if err != nil {
		return summary{}, err
	}
	mctx, stopManager := context.WithCancel(ctx)
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	done := make(chan error, 1)
	go func() {
		err := m.Start(mctx)
		if err != nil {
			fail(fmt.Errorf("manager: %w", err))
		}
		done <- err
	}()
	// Stop the manager before the namespaces are deleted (defers run last
	// first), and report a failed shutdown.
	stop := sync.OnceValue(func() error { stopManager(); return <-done })
	defer func() {
		if stopErr := stop(); err == nil && stopErr != nil {
			err = fmt.Errorf("manager: %w", stopErr)
		}
	}()

	if err := s.play(ctx); err != nil {
		return summary{}, err
	}
	// A step's outcome can show on the server before the reconcile that
	// made it has counted it: count once every reconcile has ended.
	_ = stop()
	return summary{
		Reconciles: op.reconciles.Load(),
		Created:    op.created.Load(),
		Updated:    op.updated.Load(),
		Deleted:    op.deleted.Load(),
		Steps:      s.steps,
	}, nil
}

// play runs the story's steps, each followed by a wait for its outcome.
func (s *story) play(ctx context.Context) error {
	fmt.Fprintln(s.out, "\n1. a source ConfigMap and two target namespaces: copies appear in both")
	src, err := s.namespace(ctx, "mirror-src-", false)
	if err != nil {
		return err
	}
	a, err := s.namespace(ctx, "mirror-a-", true)
	if err != nil {
		return err
	}
	b, err := s.namespace(ctx, "mirror-b-", true)
	if err != nil {
		return err
	}
	v1 := map[string]string{"greeting": "hello"}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: sourceName, Labels: labels.Merge(s.scope, labels.Set{enabledLabel: "true"})},
		Data:       v1,
	}
	if _, err := s.cs.CoreV1().ConfigMaps(src).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the source: %w", err)
	}
	fmt.Fprintf(s.out, "  created configmap %s/%s %v, labelled %s=true\n", src, sourceName, v1, enabledLabel)
	if err := s.expect(ctx, "copies in both targets", map[string]map[string]string{a: v1, b: v1}); err != nil {
		return err
	}
	cp, err := s.cs.CoreV1().ConfigMaps(a).Get(ctx, sourceName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading a copy: %w", err)
	}
	fmt.Fprintf(s.out, "  the copy in %s is annotated %s=%s\n", a, sourceAnnotation, cp.Annotations[sourceAnnotation])

	fmt.Fprintln(s.out, "\n2. the source changes: the copies follow")
	v2 := map[string]string{"greeting": "bonjour"}
	if err := s.setData(ctx, src, v2); err != nil {
		return err
	}
	if err := s.expect(ctx, "copies updated", map[string]map[string]string{a: v2, b: v2}); err != nil {
		return err
	}

	fmt.Fprintln(s.out, "\n3. a third target namespace: the Namespace map function enqueues the source")
	c, err := s.namespace(ctx, "mirror-c-", true)
	if err != nil {
		return err
	}
	if err := s.expect(ctx, "a copy in the new target", map[string]map[string]string{a: v2, b: v2, c: v2}); err != nil {
		return err
	}

	fmt.Fprintln(s.out, "\n4. someone edits a copy by hand: the ConfigMap map function enqueues its source, which restores it")
	if err := s.setData(ctx, a, map[string]string{"greeting": "edited by hand"}); err != nil {
		return err
	}
	if err := s.expect(ctx, "the copy restored", map[string]map[string]string{a: v2, b: v2, c: v2}); err != nil {
		return err
	}

	fmt.Fprintln(s.out, "\n5. a namespace stops being a target: the index finds its copy, which is deleted")
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, targetLabel)
	if _, err := s.cs.CoreV1().Namespaces().Patch(ctx, b, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("removing the target label from %s: %w", b, err)
	}
	fmt.Fprintf(s.out, "  removed label %s from namespace %s\n", targetLabel, b)
	if err := s.expect(ctx, "the copy in the former target deleted", map[string]map[string]string{a: v2, c: v2}); err != nil {
		return err
	}

	fmt.Fprintln(s.out, "\n6. the source is deleted: the index finds every copy, and they are deleted")
	if err := s.cs.CoreV1().ConfigMaps(src).Delete(ctx, sourceName, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting the source: %w", err)
	}
	fmt.Fprintf(s.out, "  deleted configmap %s/%s\n", src, sourceName)
	return s.expect(ctx, "no copies left", map[string]map[string]string{})
}

// namespace creates a namespace in the run's scope, a target if target is
// set, and returns its name.
func (s *story) namespace(ctx context.Context, prefix string, target bool) (string, error) {
	lbls, what := maps.Clone(s.scope), "source"
	if target {
		lbls[targetLabel], what = "true", "target"
	}
	ns, err := s.cs.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix, Labels: lbls}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("creating a namespace: %w", err)
	}
	s.created = append(s.created, ns.Name)
	if target {
		s.targets = append(s.targets, ns.Name)
	}
	fmt.Fprintf(s.out, "  created namespace %s (%s)\n", ns.Name, what)
	return ns.Name, nil
}

// setData replaces the data of the ConfigMap sourceName in namespace ns.
func (s *story) setData(ctx context.Context, ns string, data map[string]string) error {
	cms := s.cs.CoreV1().ConfigMaps(ns)
	_, err := demo.Update(ctx, cms.Get, cms.Update, sourceName, func(cm *corev1.ConfigMap) { cm.Data = data })
	if err != nil {
		return fmt.Errorf("editing %s/%s: %w", ns, sourceName, err)
	}
	fmt.Fprintf(s.out, "  set %s/%s to %v\n", ns, sourceName, data)
	return nil
}

// expect waits until the copies in the target namespaces, read from the API
// server, are exactly want (namespace → data; a namespace missing from want
// must have no copy).
func (s *story) expect(ctx context.Context, what string, want map[string]map[string]string) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	var got map[string]map[string]string
	for {
		var err error
		got, err = s.copies(ctx)
		if err == nil && maps.EqualFunc(got, want, maps.Equal) {
			s.steps++
			fmt.Fprintf(s.out, "  ✓ %s: %d copies, after %s\n", what, len(got), time.Since(start).Round(time.Millisecond))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w; copies seen: %v, want %v", what, context.Cause(ctx), got, want)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// copies returns the data of the copy in each target namespace that has one.
func (s *story) copies(ctx context.Context) (map[string]map[string]string, error) {
	got := map[string]map[string]string{}
	for _, ns := range s.targets {
		cm, err := s.cs.CoreV1().ConfigMaps(ns).Get(ctx, sourceName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		got[ns] = cm.Data
	}
	return got, nil
}

// cleanup deletes the namespaces the story created.
func (s *story) cleanup(ctx context.Context) {
	var deleted []string
	var errs []error
	for _, ns := range s.created {
		err := s.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		switch {
		case err == nil:
			deleted = append(deleted, ns)
		case !apierrors.IsNotFound(err):
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", ns, err))
		}
	}
	if len(deleted) > 0 {
		fmt.Fprintf(s.out, "\ndeleted namespaces %s\n", strings.Join(deleted, ", "))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(s.out, "cleanup: %v\n", err)
	}
}
