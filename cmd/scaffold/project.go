package main

import (
	"errors"
	"strings"
)

// controllerGenVersion is the controller-tools release the generated
// project runs: the newest of those tried (v0.23.0, v0.22.0, v0.21.0,
// v0.20.1) that builds with Go 1.26 and knows Kubernetes 1.37's types.
const controllerGenVersion = "v0.23.0"

// steadyModule is steady's module path, which the generated go.mod
// requires.
const steadyModule = "github.com/steadyctl/steady"

// unpublished is the version a go.mod requires of a module that a
// replace directive provides: the zero pseudo-version, as `go mod edit
// -replace` followed by `go get` writes it.
const unpublished = "v0.0.0-00010101000000-000000000000"

// project is what the templates are rendered from: the flags' values and
// the names derived from them. Every name the generated files share (the
// namespace, the service account, the Lease...) is a method here, so the
// templates and the tests agree on it.
type project struct {
	Module   string // example.com/guestbook
	Name     string // guestbook: prefixes the manifests' objects
	Group    string // webapp.example.com
	Version  string // v1
	Kind     string // Guestbook
	Webhooks bool   // validating and defaulting webhooks for Kind

	// SteadyVersion is the version of steady go.mod requires; with
	// SteadyDir, unpublished, and go.mod replaces steady with the
	// checkout at SteadyDir (an absolute path).
	SteadyVersion, SteadyDir string
}

// newProject checks the names and fills in Name when it is empty.
func newProject(p project) (*project, error) {
	errs := []error{checkModule(p.Module), checkGroup(p.Group), checkVersion(p.Version), checkKind(p.Kind)}
	switch {
	case p.Name != "":
		errs = append(errs, checkName(p.Name))
	case errs[0] == nil: // derived from a valid module path
		name, err := nameFromModule(p.Module)
		errs = append(errs, err)
		p.Name = name
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &p, nil
}

// KindLower is the kind in lower case, for file names: guestbook.
func (p *project) KindLower() string { return strings.ToLower(p.Kind) }

// Plural is the kind's resource name: guestbooks.
func (p *project) Plural() string { return plural(p.Kind) }

// PluralKind is the plural in UpperCamelCase: Guestbooks.
func (p *project) PluralKind() string { return pluralCamel(p.Kind) }

// Var names a local variable holding one object of the kind: guestbook.
func (p *project) Var() string { return variable(p.Kind) }

// PluralVar names a field or variable holding a client of the kind:
// guestbooks.
func (p *project) PluralVar() string { return variable(p.PluralKind()) }

// APIAlias is the API package's import name: webappv1.
func (p *project) APIAlias() string { return apiAlias(p.Group, p.Version) }

// APIPackage is the API package's import path.
func (p *project) APIPackage() string { return p.Module + "/api/" + p.Version }

// CRDName is the CustomResourceDefinition's name: guestbooks.webapp.example.com.
func (p *project) CRDName() string { return p.Plural() + "." + p.Group }

// CRDFile is where controller-gen writes the CRD, relative to the
// project: config/crd/bases/<group>_<plural>.yaml.
func (p *project) CRDFile() string {
	return "config/crd/bases/" + p.Group + "_" + p.Plural() + ".yaml"
}

// Namespace is where the operator runs.
func (p *project) Namespace() string { return p.Name + "-system" }

// ServiceAccount is the operator's service account, in Namespace.
func (p *project) ServiceAccount() string { return p.Name + "-controller-manager" }

// Deployment is the operator's Deployment, in Namespace.
func (p *project) Deployment() string { return p.Name + "-controller-manager" }

// ManagerRole is the ClusterRole controller-gen writes from the RBAC
// markers.
func (p *project) ManagerRole() string { return p.Name + "-manager-role" }

// LeaseName is the leader election Lease, in the pod's namespace.
func (p *project) LeaseName() string { return p.Name + "-leader-election" }

// MetricsService is the Service in front of the metrics endpoint.
func (p *project) MetricsService() string { return p.Name + "-metrics" }

// WebhookService is the Service the API server calls the webhooks
// through.
func (p *project) WebhookService() string { return p.Name + "-webhook" }

// WebhookSecret holds the webhook certificates the operator manages.
func (p *project) WebhookSecret() string { return p.Name + "-webhook-certs" }

// ValidatingWebhooks names the ValidatingWebhookConfiguration.
func (p *project) ValidatingWebhooks() string { return p.Name + "-validating-webhook-configuration" }

// MutatingWebhooks names the MutatingWebhookConfiguration.
func (p *project) MutatingWebhooks() string { return p.Name + "-mutating-webhook-configuration" }

// WebhookPath is the path of the kind's webhook of verb ("validate" or
// "mutate"), as builder.WebhookManagedBy serves it.
func (p *project) WebhookPath(verb string) string {
	return "/" + verb + "-" + strings.ReplaceAll(p.Group, ".", "-") + "-" + p.Version + "-" + p.KindLower()
}

// Image is the image the Deployment runs until the user sets theirs.
func (p *project) Image() string { return p.Name + ":dev" }

// ControllerGen is the controller-gen version the project runs.
func (p *project) ControllerGen() string { return controllerGenVersion }

// GenerateCommand regenerates the deep copies, the CRD and the
// ClusterRole: the project's //go:generate line, which the scaffold runs
// through go generate.
func (p *project) GenerateCommand() string {
	return "go run sigs.k8s.io/controller-tools/cmd/controller-gen@" + controllerGenVersion +
		" object crd rbac:roleName=" + p.ManagerRole() +
		" paths=./... output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac"
}
