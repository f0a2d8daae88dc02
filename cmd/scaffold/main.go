// Command scaffold creates a new operator project built on steady: a Go
// module with one custom resource kind, its controller and the controller's
// test against a real API server, a Dockerfile, and the manifests that
// deploy it.
//
// Usage:
//
//	go run github.com/steadyctl/steady/cmd/scaffold -module example.com/guestbook \
//		-group webapp.example.com -version v1 -kind Guestbook [-webhooks] [-steady DIR] DIR
//
// DIR must be empty or missing. The project gets:
//
//   - go.mod, requiring steady, and main.go, a manager with kubebuilder's
//     flags (manager.RegisterFlags), --kubeconfig and -v;
//   - api/<version>/: the kind's Go type with kubebuilder markers, its deep
//     copies and its CRD in config/crd/bases, both made by controller-gen;
//   - internal/controller/: a reconciler keeping a ConfigMap per object and
//     a Ready condition, and its test (operatortest, on testenv);
//   - with -webhooks, internal/webhook/<version>/: a defaulter and a
//     validator, served with certificates the operator manages (package
//     certs);
//   - Dockerfile, and config/: plain YAML for kubectl apply -f config/ -R
//     (Namespace, Deployment, ServiceAccount, RBAC, Services, webhook
//     configurations);
//   - README.md: the layout, and the commands to test, run, build, deploy
//     and regenerate.
//
// Then it runs go mod tidy and go generate ./... in DIR, which runs
// controller-gen (built from the module proxy on first use, about a
// minute; -no-generate skips it).
//
// steady is not on the module proxy yet, so go.mod replaces it with a
// local checkout: -steady's, or by default the checkout this command runs
// from. See findSteady.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	err := run(os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp): // -help: the usage is printed
	case err != nil:
		fmt.Fprintln(os.Stderr, "scaffold:", err)
		os.Exit(2)
	}
}

// run creates the project that args describe, writing progress to out.
func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("scaffold", flag.ContinueOnError)
	fs.SetOutput(out)
	var p project
	fs.StringVar(&p.Module, "module", "", "the new project's Go module path, e.g. example.com/guestbook (required)")
	fs.StringVar(&p.Group, "group", "", "the API group of its kind, a DNS subdomain with a dot, e.g. webapp.example.com (required)")
	fs.StringVar(&p.Version, "version", "v1", "the API version of its kind: v1, v1alpha1, v2beta1...")
	fs.StringVar(&p.Kind, "kind", "", "its kind, in UpperCamelCase, e.g. Guestbook (required)")
	fs.StringVar(&p.Name, "name", "", "the project's name, prefixing its objects in the cluster (default: the module path's last element)")
	fs.BoolVar(&p.Webhooks, "webhooks", false, "add a validating and a defaulting admission webhook for the kind")
	steadyDir := fs.String("steady", "", "a checkout of steady for go.mod's replace directive (default: the checkout this command runs from)")
	noGenerate := fs.Bool("no-generate", false, "skip controller-gen: no deep copies, CRD or ClusterRole until go generate ./... runs")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: scaffold -module PATH -group GROUP [-version V] -kind KIND [flags] DIR

Creates a new operator project built on steady in DIR, which must be empty or
missing, then runs go mod tidy and go generate ./... (controller-gen) in it.
The generated README.md says how to test, run, build, deploy and regenerate.

steady is not on the module proxy yet: the project's go.mod replaces it with
a local checkout, -steady's or by default the one this command runs from
(go run ./cmd/scaffold in a checkout).

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("want one argument, DIR, the new project's directory")
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("DIR: %w", err)
	}
	for _, f := range []struct{ flag, value string }{{"-module", p.Module}, {"-group", p.Group}, {"-kind", p.Kind}} {
		if f.value == "" {
			return fmt.Errorf("%s is required (see -help)", f.flag)
		}
	}
	proj, err := newProject(p)
	if err != nil {
		return err
	}
	if err := checkEmpty(dir); err != nil {
		return err
	}
	src, err := findSteady(*steadyDir)
	if err != nil {
		return err
	}
	proj.SteadyVersion, proj.SteadyDir = src.version, src.dir
	return scaffold(proj, dir, !*noGenerate, out)
}

// scaffold writes proj into dir and generates what the templates cannot.
func scaffold(proj *project, dir string, controllerGen bool, out io.Writer) error {
	files, err := render(proj)
	if err != nil {
		return err
	}
	if err := write(dir, files); err != nil {
		return fmt.Errorf("writing the project: %w", err)
	}
	if err := generate(dir, controllerGen, out); err != nil {
		return err
	}
	fmt.Fprintf(out, "scaffold: created %s (module %s) in %s; see its README.md\n", proj.Name, proj.Module, dir)
	return nil
}
