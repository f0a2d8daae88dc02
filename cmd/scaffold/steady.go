package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// steadySource says where the generated go.mod gets steady from: a
// released version, or a checkout it replaces steady with.
type steadySource struct {
	version string // what go.mod requires
	dir     string // the checkout, absolute; "" for a released version
}

// findSteady decides steadySource. In order:
//
//  1. -steady DIR: that checkout;
//  2. the checkout this scaffold was built from, when it runs from one
//     (go run ./cmd/scaffold, or go run github.com/steadyctl/steady/cmd/scaffold
//     inside a checkout): its source files are there, outside the module
//     cache;
//  3. the version of steady this scaffold was built from, when it was
//     built from a released module (go run github.com/steadyctl/steady/cmd/scaffold@v1.2.3);
//  4. the directory `go list -m github.com/steadyctl/steady` gives in the
//     current directory: a checkout, or a module that requires or
//     replaces steady.
func findSteady(flagDir string) (steadySource, error) {
	if flagDir != "" {
		dir, err := checkout(flagDir)
		if err != nil {
			return steadySource{}, fmt.Errorf("-steady: %w", err)
		}
		return steadySource{version: unpublished, dir: dir}, nil
	}
	if dir, ok := ownCheckout(); ok {
		return steadySource{version: unpublished, dir: dir}, nil
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path == steadyModule &&
		info.Main.Version != "" && info.Main.Version != "(devel)" && !strings.HasSuffix(info.Main.Version, "+dirty") {
		return steadySource{version: info.Main.Version}, nil
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", steadyModule).Output()
	if err == nil {
		if dir, err := checkout(strings.TrimSpace(string(out))); err == nil {
			return steadySource{version: unpublished, dir: dir}, nil
		}
	}
	return steadySource{}, errors.New("cannot find steady, which is not on the module proxy yet: pass -steady with the directory of a checkout of " + steadyModule)
}

// ownCheckout returns the checkout this program's source is in, if it was
// built from one: cmd/scaffold's parent's parent, holding steady's
// go.mod, and not in the module cache (a module downloaded there is a
// released version, which go.mod can require by version).
func ownCheckout() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) { // built with -trimpath: no source path
		return "", false
	}
	dir, err := checkout(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		return "", false
	}
	if cache, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		if c := strings.TrimSpace(string(cache)); c != "" && strings.HasPrefix(dir, c+string(filepath.Separator)) {
			return "", false
		}
	}
	return dir, true
}

// checkout returns dir, absolute and cleaned, if it holds a go.mod of
// steady's module.
func checkout(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	name := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("%s is not a checkout of %s: %w", dir, steadyModule, err)
	}
	if mod := modulePath(string(data)); mod != steadyModule {
		return "", fmt.Errorf("%s is module %q, not %s", name, mod, steadyModule)
	}
	return dir, nil
}

// modulePath returns the module path a go.mod declares, "" if none.
func modulePath(gomod string) string {
	sc := bufio.NewScanner(strings.NewReader(gomod))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			if p, err := strconv.Unquote(fields[1]); err == nil {
				return p
			}
			return fields[1]
		}
	}
	return ""
}
