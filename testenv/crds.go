package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdInstall is one CustomResourceDefinition InstallCRDs was asked for:
// the definition, and the outcome once done is closed.
type crdInstall struct {
	spec any
	done chan struct{}
	err  error
}

// InstallCRDs creates the CustomResourceDefinitions crds (apiextensions.k8s.io/v1,
// unstructured so that no apiextensions Go types are needed; see ReadCRDs
// for YAML files) and returns once the API server serves every version of
// each and lists it in discovery, where managers look kinds up.
//
// Installing is done once per environment: asking again for a CRD this
// environment installed, from any test and any goroutine, waits for the
// first install and returns its outcome. Asking for one with the same name
// but another spec is an error naming it, since tests sharing an environment
// would otherwise see whichever definition came first. A CRD that exists
// already, created by other means, is used as it is.
func (e *Environment) InstallCRDs(ctx context.Context, crds ...*unstructured.Unstructured) error {
	var errs []error
	for _, crd := range crds {
		if err := e.installCRD(ctx, crd); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (e *Environment) installCRD(ctx context.Context, crd *unstructured.Unstructured) error {
	name := crd.GetName()
	if err := checkCRD(crd); err != nil {
		return err
	}
	spec := crd.Object["spec"]
	e.crdMu.Lock()
	in, asked := e.crds[name]
	if !asked {
		in = &crdInstall{spec: spec, done: make(chan struct{})}
		if e.crds == nil {
			e.crds = map[string]*crdInstall{}
		}
		e.crds[name] = in
	}
	e.crdMu.Unlock()
	if asked {
		if !apiequality.Semantic.DeepEqual(in.spec, spec) {
			return fmt.Errorf("testenv: CRD %s: installed before with another spec; CRDs are cluster-wide, so tests sharing an environment must agree on them", name)
		}
		select {
		case <-in.done:
			return in.err
		case <-ctx.Done():
			return fmt.Errorf("testenv: waiting for CRD %s to be served: %w", name, ctx.Err())
		}
	}
	defer close(in.done)
	if in.err = e.createCRD(ctx, crd); in.err != nil {
		e.crdMu.Lock()
		delete(e.crds, name) // the next asker tries again
		e.crdMu.Unlock()
	}
	return in.err
}

// checkCRD refuses what the API server would refuse less clearly, or not
// at all before the wait for discovery timed out.
func checkCRD(crd *unstructured.Unstructured) error {
	name := crd.GetName()
	if crd.GetKind() != "CustomResourceDefinition" || crd.GetAPIVersion() != crdGVR.GroupVersion().String() {
		return fmt.Errorf("testenv: %q is a %s %s, not an %s CustomResourceDefinition", name, crd.GetAPIVersion(), crd.GetKind(), crdGVR.GroupVersion())
	}
	if name == "" {
		return errors.New("testenv: a CustomResourceDefinition without metadata.name")
	}
	if _, _, err := servedVersions(crd); err != nil {
		return fmt.Errorf("testenv: CRD %s: %w", name, err)
	}
	return nil
}

// servedVersions returns the CRD's group and plural resource and the
// group versions it serves.
func servedVersions(crd *unstructured.Unstructured) (plural string, served []string, err error) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ = unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		v, _ := v.(map[string]any)
		if name, _ := v["name"].(string); name != "" && v["served"] == true {
			served = append(served, group+"/"+name)
		}
	}
	if group == "" || plural == "" || len(served) == 0 {
		return "", nil, errors.New("spec.group, spec.names.plural and a served version are required")
	}
	return plural, served, nil
}

// createCRD creates crd unless it exists and waits until discovery lists
// its resource in every served version. Discovery lists only established
// CRDs, so that is the one condition to wait for.
func (e *Environment) createCRD(ctx context.Context, crd *unstructured.Unstructured) error {
	name := crd.GetName()
	dyn, err := dynamic.NewForConfig(e.Config)
	if err != nil {
		return fmt.Errorf("testenv: CRD %s: %w", name, err)
	}
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("testenv: creating CRD %s: %w", name, err)
	}
	plural, served, _ := servedVersions(crd)
	for _, gv := range served {
		for interval := time.Millisecond; ; interval = min(2*interval, maxInterval) {
			list, err := e.Clientset.Discovery().ServerResourcesForGroupVersion(gv)
			if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == plural }) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("testenv: waiting for CRD %s to be served as %s: %w", name, gv, ctx.Err())
			case <-time.After(interval):
			}
		}
	}
	return nil
}

// ReadCRDs reads the CustomResourceDefinitions in files and directories
// (the *.yaml, *.yml and *.json files directly in each, as in kubebuilder's
// config/crd/bases), for InstallCRDs. A file may hold several YAML
// documents; documents of other kinds (a kustomization.yaml) are skipped,
// but a path without any CRD is an error, as is a CRD of the
// apiextensions.k8s.io/v1beta1 API, which no served Kubernetes version knows.
func ReadCRDs(paths ...string) ([]*unstructured.Unstructured, error) {
	var crds []*unstructured.Unstructured
	for _, path := range paths {
		files, err := crdFiles(path)
		if err != nil {
			return nil, err
		}
		found := 0
		for _, file := range files {
			read, err := readCRDFile(file)
			if err != nil {
				return nil, err
			}
			found += len(read)
			crds = append(crds, read...)
		}
		if found == 0 {
			return nil, fmt.Errorf("testenv: no CustomResourceDefinition in %s", path)
		}
	}
	return crds, nil
}

// crdFiles returns path if it is a file, else the manifest files in it.
func crdFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("testenv: reading CRDs: %w", err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("testenv: reading CRDs: %w", err)
	}
	var files []string
	for _, ent := range entries {
		switch filepath.Ext(ent.Name()) {
		case ".yaml", ".yml", ".json":
			if !ent.IsDir() {
				files = append(files, filepath.Join(path, ent.Name()))
			}
		}
	}
	return files, nil
}

func readCRDFile(file string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("testenv: reading CRDs: %w", err)
	}
	defer f.Close()
	var crds []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(f, 4096)
	for doc := 1; ; doc++ {
		var obj map[string]any
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			return crds, nil
		} else if err != nil {
			return nil, fmt.Errorf("testenv: %s, document %d: %w", file, doc, err)
		}
		u := &unstructured.Unstructured{Object: obj}
		switch {
		case obj == nil || u.GetKind() != "CustomResourceDefinition":
			continue
		case strings.HasPrefix(u.GetAPIVersion(), "apiextensions.k8s.io/") && u.GetAPIVersion() != crdGVR.GroupVersion().String():
			return nil, fmt.Errorf("testenv: %s, document %d: CRD %s is %s; only %s is served (since Kubernetes 1.22)",
				file, doc, u.GetName(), u.GetAPIVersion(), crdGVR.GroupVersion())
		}
		crds = append(crds, u)
	}
}
