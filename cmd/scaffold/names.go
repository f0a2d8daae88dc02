package main

import (
	"errors"
	"fmt"
	"go/token"
	"path"
	"regexp"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The rules a name must follow, checked before anything is written: a
// mistake found by controller-gen or the API server minutes later, in
// generated code, is much harder to trace back to the flag.
var (
	kindPattern    = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	versionPattern = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	modulePattern  = regexp.MustCompile(`^[A-Za-z0-9][-A-Za-z0-9._~]*(/[A-Za-z0-9][-A-Za-z0-9._~]*)*$`)
	notLabel       = regexp.MustCompile(`[^a-z0-9]+`)
)

// maxNameLen bounds the project name, which prefixes the names of the
// manifests' objects: "<name>-controller-manager" must stay a DNS label
// (63 characters) and the Services' names DNS-1035 labels.
const maxNameLen = 40

// checkModule checks -module: a Go module path (go mod tidy has the final
// word on what the module proxy accepts).
func checkModule(module string) error {
	if !modulePattern.MatchString(module) {
		return fmt.Errorf("-module %q: not a Go module path (slash-separated elements of letters, digits and -._~, such as example.com/guestbook)", module)
	}
	return nil
}

// checkGroup checks -group: a DNS subdomain with at least one dot, as the
// API server requires of a CustomResourceDefinition's group.
func checkGroup(group string) error {
	if errs := validation.IsDNS1123Subdomain(group); len(errs) > 0 {
		return fmt.Errorf("-group %q: not a DNS subdomain: %s", group, strings.Join(errs, "; "))
	}
	if !strings.Contains(group, ".") {
		return fmt.Errorf("-group %q: a custom resource's group needs at least one dot, such as %s.example.com", group, group)
	}
	return nil
}

// checkVersion checks -version: v1, v2, v1alpha1, v2beta3, ..., the forms
// Kubernetes orders versions by.
func checkVersion(version string) error {
	if !versionPattern.MatchString(version) {
		return fmt.Errorf("-version %q: want v<N>, v<N>alpha<M> or v<N>beta<M>, such as v1 or v1alpha1", version)
	}
	return nil
}

// checkKind checks -kind: UpperCamelCase, as Kubernetes kinds and Go's
// exported type names are.
func checkKind(kind string) error {
	switch {
	case !kindPattern.MatchString(kind):
		return fmt.Errorf("-kind %q: want UpperCamelCase letters and digits, such as Guestbook", kind)
	case len(kind) > 63:
		return fmt.Errorf("-kind %q: longer than 63 characters", kind)
	case strings.HasSuffix(kind, "List"):
		return fmt.Errorf("-kind %q: a kind may not end in List, which names the kind's list type", kind)
	}
	return nil
}

// checkName checks -name, the project's name in the manifests.
func checkName(name string) error {
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return fmt.Errorf("-name %q: not a DNS label starting with a letter: %s", name, strings.Join(errs, "; "))
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("-name %q: longer than %d characters (it prefixes the manifests' object names)", name, maxNameLen)
	}
	return nil
}

// nameFromModule derives the project's name from the module path's last
// element: example.com/guestbook-operator gives guestbook-operator, and a
// major version suffix (/v2) is skipped.
func nameFromModule(module string) (string, error) {
	base := path.Base(module)
	if versionPattern.MatchString(base) && path.Dir(module) != "." {
		base = path.Base(path.Dir(module))
	}
	name := strings.Trim(notLabel.ReplaceAllString(strings.ToLower(base), "-"), "-")
	name = strings.TrimLeftFunc(name, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(name) > maxNameLen {
		name = strings.TrimRight(name[:maxNameLen], "-")
	}
	if name == "" {
		return "", errors.New("-name: cannot derive a project name from -module " + module + "; give -name")
	}
	return name, nil
}

// plural is the resource name of kind, in lower case, by English rules
// (flect's, which controller-gen uses, agree on common words); the
// generated types state it in a +kubebuilder:resource:path marker, so
// the CRD, the RBAC rules and the webhook rules all use this one.
func plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "z"),
		strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	case strings.HasSuffix(k, "y") && len(k) > 1 && !strings.ContainsRune("aeiou", rune(k[len(k)-2])):
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}

// pluralCamel is kind's plural in UpperCamelCase: PaymentPolicy gives
// PaymentPolicies.
func pluralCamel(kind string) string {
	p := plural(kind)
	// The plural only changes the end of the word: keep kind's casing
	// for the part the two share.
	common := 0
	for common < len(kind) && common < len(p) && unicode.ToLower(rune(kind[common])) == rune(p[common]) {
		common++
	}
	return kind[:common] + p[common:]
}

// lowerCamel turns an UpperCamelCase name into a Go local variable's name:
// Guestbook gives guestbook, URLMap urlMap, DNS dns.
func lowerCamel(name string) string {
	r := []rune(name)
	i := 0
	for i < len(r) && unicode.IsUpper(r[i]) {
		i++
	}
	switch {
	case i == 0:
		return name
	case i == len(r): // all upper case: DNS
		return strings.ToLower(name)
	case i > 1: // an initialism before a word: URLMap
		i--
	}
	return strings.ToLower(string(r[:i])) + string(r[i:])
}

// reserved are identifiers a generated local variable must not take:
// Go's keywords and predeclared names, and the packages the generated
// files import.
var reserved = map[string]bool{
	"admission": true, "apierrors": true, "builder": true, "client": true, "condition": true,
	"context": true, "corev1": true, "errors": true, "events": true, "field": true, "fmt": true,
	"logr": true, "manager": true, "maps": true, "metav1": true, "object": true, "operatortest": true,
	"predicate": true, "reconcile": true, "runtime": true, "schema": true, "strings": true,
	"testenv": true, "testing": true, "time": true, "validation": true, "clientgoscheme": true,
	"r": true, "t": true, "env": true, "ctx": true, "req": true, "err": true, "cm": true, "op": true,
	"obj": true, "scheme": true, "log": true, "latest": true, "owned": true, "c": true, "s": true,
	"m": true, "name": true, "other": true, "taken": true, "holds": true, "message": true, "status": true,
	"reason": true, "data": true, "want": true, "configMaps": true, "recorder": true, "ready": true,
	"start": true, "managedBy": true, "key": true, "errs": true, "path": true, "user": true, "warnings": true,
	"oldObj": true, "tc": true, "got": true, "v": true, "d": true, "k8s": true, "flags": true,
	// predeclared
	"any": true, "bool": true, "byte": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "error": true, "false": true, "float32": true, "float64": true,
	"imag": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true, "iota": true,
	"len": true, "make": true, "max": true, "min": true, "new": true, "nil": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true, "rune": true, "string": true,
	"true": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
}

// variable is a Go local variable named after name (lowerCamel), with
// "Obj" appended when that would be a keyword or clash with a name the
// generated code uses.
func variable(name string) string {
	v := lowerCamel(name)
	if token.IsKeyword(v) || reserved[v] {
		v += "Obj"
	}
	return v
}

// apiAlias is the import name of the API package, as kubebuilder spells
// it: the group's first label, without dashes, and the version
// (webapp.example.com and v1 give webappv1).
func apiAlias(group, version string) string {
	first, _, _ := strings.Cut(group, ".")
	alias := strings.ReplaceAll(first, "-", "") + version
	if alias[0] >= '0' && alias[0] <= '9' {
		alias = "api" + alias
	}
	if token.IsKeyword(alias) || reserved[alias] {
		alias += "api"
	}
	return alias
}
