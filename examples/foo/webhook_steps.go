package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadyctl/steady/examples/foo/api/v1alpha1"
	"github.com/steadyctl/steady/examples/foo/api/v1beta1"
)

// reportDefaults says how the API server stored foo, created without
// replicas or image.
func (st *story) reportDefaults(foo *v1beta1.Foo) {
	if st.s.Webhooks == "" {
		fmt.Fprintf(st.out, "foo %s is stored as written, %s (no webhooks): the reconciler takes that as replicas %d, image %s\n",
			foo.Name, describe(foo.Spec.Deployment), defaultReplicas, defaultImage)
		return
	}
	st.s.Stored = describe(foo.Spec.Deployment)
	fmt.Fprintf(st.out, "foo %s is stored as %s: the defaulting webhook filled in replicas and image\n", foo.Name, st.s.Stored)
}

// webhooks shows the validator refusing and warning, and the conversion
// webhook serving a client of v1alpha1.
func (st *story) webhooks(ctx context.Context) error {
	if st.s.Webhooks == "" {
		fmt.Fprintln(st.out, "\n5. the webhooks: skipped, they are off with this cluster")
		return nil
	}
	fmt.Fprintf(st.out, "\n5. the webhooks, served at %s\n", st.s.Webhooks)
	for _, step := range []func(context.Context) error{st.refuseInvalid, st.refuseRename, st.warnRegistry, st.convert} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// refuseInvalid creates a Foo the validator refuses.
func (st *story) refuseInvalid(ctx context.Context) error {
	fmt.Fprintf(st.out, "create foo %s: deployment.name Web_Server, replicas 11\n", invalidName)
	_, err := st.beta.create(ctx, &v1beta1.Foo{ObjectMeta: metav1.ObjectMeta{Name: invalidName},
		Spec: v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{Name: "Web_Server", Replicas: ptr.To[int32](11)}}}, false)
	if !apierrors.IsInvalid(err) {
		return fmt.Errorf("creating foo %s: got %v, want the validating webhook's 422 Invalid", invalidName, err)
	}
	st.s.Invalid = statusMessage(err)
	fmt.Fprintf(st.out, "refused (422 Invalid): %s\n", st.s.Invalid)
	return nil
}

// refuseRename tries to point example-foo at another Deployment.
func (st *story) refuseRename(ctx context.Context) error {
	fmt.Fprintf(st.out, "rename foo %s's deployment to example-foo-api\n", fooName)
	_, err := st.foos.Modify(ctx, st.ns, fooName, func(f *v1beta1.Foo) error {
		f.Spec.Deployment.Name = "example-foo-api"
		return nil
	})
	if !apierrors.IsInvalid(err) {
		return fmt.Errorf("renaming foo %s's deployment: got %v, want the validating webhook's 422 Invalid", fooName, err)
	}
	st.s.Immutable = statusMessage(err)
	fmt.Fprintf(st.out, "refused (422 Invalid): %s\n", st.s.Immutable)
	return nil
}

// warnRegistry dry-runs the create of a Foo whose image comes from a
// deprecated registry: admitted, with a warning.
func (st *story) warnRegistry(ctx context.Context) error {
	const image = "k8s.gcr.io/pause:3.9"
	fmt.Fprintf(st.out, "create foo old-registry, image %s, as a dry run (kubectl apply --dry-run=server)\n", image)
	warnings, err := st.beta.create(ctx, &v1beta1.Foo{ObjectMeta: metav1.ObjectMeta{Name: "old-registry"},
		Spec: v1beta1.FooSpec{Deployment: v1beta1.DeploymentSpec{Name: "old-registry-web", Image: image}}}, true)
	if err != nil {
		return fmt.Errorf("dry-run create of foo old-registry: %w", err)
	}
	if len(warnings) == 0 {
		return errors.New("dry-run create of foo old-registry: admitted without the validating webhook's warning")
	}
	st.s.ImageWarning = strings.Join(warnings, "; ")
	fmt.Fprintf(st.out, "admitted, nothing stored, with a warning: %s\n", st.s.ImageWarning)
	return nil
}

// convert writes a Foo as v1alpha1 and reads it as v1beta1, and reads
// example-foo, written as v1beta1, as v1alpha1.
func (st *story) convert(ctx context.Context) error {
	fmt.Fprintf(st.out, "create foo %s as v1alpha1: deploymentName %s, replicas 2\n", legacyName, legacyDeploy)
	warnings, err := st.alpha.create(ctx, &v1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: legacyName},
		Spec: v1alpha1.FooSpec{DeploymentName: legacyDeploy, Replicas: ptr.To[int32](2)}}, false)
	if err != nil {
		return fmt.Errorf("creating foo %s as v1alpha1: %w", legacyName, err)
	}
	st.s.Deprecation = strings.Join(warnings, "; ")
	fmt.Fprintf(st.out, "the API server warns: %s\n", st.s.Deprecation)
	var beta v1beta1.Foo
	if err := st.beta.get(ctx, legacyName, &beta); err != nil {
		return fmt.Errorf("reading foo %s as v1beta1: %w", legacyName, err)
	}
	st.s.ReadAsV1beta1 = describe(beta.Spec.Deployment)
	// The defaulter saw the create as v1beta1; the image it set went back
	// into the v1alpha1 object in the annotation, and out of it into
	// storage. Without the annotation it would be unset here.
	fmt.Fprintf(st.out, "foo %s read as v1beta1: %s (the defaulter's image, carried through v1alpha1 in annotation %s)\n",
		legacyName, st.s.ReadAsV1beta1, v1alpha1.ImageAnnotation)
	err = st.settle(ctx, "foo "+legacyName+"'s deployment and finalizer", func(ctx context.Context) (bool, error) {
		if d, err := st.getDeployment(ctx, legacyDeploy); d == nil || err != nil {
			return false, err
		}
		f, err := st.getFoo(ctx, legacyName)
		return f != nil && slices.Contains(f.Finalizers, cleanupFinalizer), err
	})
	if err != nil {
		return err
	}
	var alpha v1alpha1.Foo
	if err := st.alpha.get(ctx, fooName, &alpha); err != nil {
		return fmt.Errorf("reading foo %s as v1alpha1: %w", fooName, err)
	}
	st.s.ReadAsV1alpha1 = fmt.Sprintf("deploymentName %s, replicas %s, annotation %s=%s", alpha.Spec.DeploymentName,
		replicasText(alpha.Spec.Replicas), v1alpha1.ImageAnnotation, alpha.Annotations[v1alpha1.ImageAnnotation])
	fmt.Fprintf(st.out, "foo %s read as v1alpha1: %s\n", fooName, st.s.ReadAsV1alpha1)
	return nil
}

// describe is a Deployment spec as the story prints it.
func describe(d v1beta1.DeploymentSpec) string {
	image := d.Image
	if image == "" {
		image = "unset"
	}
	return fmt.Sprintf("{name: %s, replicas: %s, image: %s}", d.Name, replicasText(d.Replicas), image)
}

func replicasText(r *int32) string {
	if r == nil {
		return "unset"
	}
	return strconv.Itoa(int(*r))
}

// statusMessage is the message of the API status err carries: the
// webhook's refusal as the API server words it.
func statusMessage(err error) string {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return s.Status().Message
	}
	return err.Error()
}

// versionClient reads and writes the story's Foos in one version, typed,
// as a client of that version would: the API server converts between the
// version asked for and the one it stores.
type versionClient struct {
	rest *rest.RESTClient
	ns   string
}

// newVersionClient returns a client of Foos in version gv of namespace ns.
func newVersionClient(cfg *rest.Config, scheme *runtime.Scheme, gv schema.GroupVersion, ns string) (*versionClient, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion, cfg.APIPath = &gv, "/apis"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	cfg.WarningHandler = rest.NoWarnings{} // create returns them, for the story to print
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("a REST client of %s: %w", gv, err)
	}
	return &versionClient{rest: rc, ns: ns}, nil
}

// create creates foo, or only pretends to with dryRun, and returns the
// warnings the API server sent.
func (c *versionClient) create(ctx context.Context, foo runtime.Object, dryRun bool) ([]string, error) {
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	res := c.rest.Post().Namespace(c.ns).Resource("foos").VersionedParams(&opts, metav1.ParameterCodec).Body(foo).Do(ctx)
	var warnings []string
	for _, w := range res.Warnings() {
		warnings = append(warnings, w.Text)
	}
	return warnings, res.Error()
}

// get reads the Foo name into foo.
func (c *versionClient) get(ctx context.Context, name string, foo runtime.Object) error {
	return c.rest.Get().Namespace(c.ns).Resource("foos").Name(name).Do(ctx).Into(foo)
}
