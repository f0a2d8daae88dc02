package testenv

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The versions testenv builds when no prebuilt binaries are named.
const (
	// KubeAPIServerVersion is the kube-apiserver release built from the Go module proxy.
	KubeAPIServerVersion = "v1.36.3"
	// EtcdVersion is the etcd release built from the Go module proxy.
	EtcdVersion = "v3.6.16"
)

// Environment variables naming a directory of prebuilt binaries (etcd and
// kube-apiserver). AssetsEnv is steady's own; KubebuilderAssetsEnv is the one
// controller-runtime's envtest uses, so a directory set up for envtest works.
const (
	AssetsEnv            = "STEADY_ASSETS"
	KubebuilderAssetsEnv = "KUBEBUILDER_ASSETS"
	// CacheDirEnv overrides where built binaries are kept
	// (default: os.UserCacheDir()/steady/testenv).
	CacheDirEnv = "STEADY_CACHE_DIR"
)

// recipes holds one tiny Go module per binary: a main package that calls the
// upstream command, a go.mod pinning the release and a go.sum. They are
// embedded (as .txt, since a directory with a go.mod would be cut out of this
// module) so users who import testenv from the module cache can build too.
//
//go:embed recipes
var recipes embed.FS

type binary struct {
	name    string // also the recipe directory
	version string
	ldflags string // release builds stamp the version this way; module builds must too
}

var (
	etcdBinary      = binary{name: "etcd", version: EtcdVersion}
	apiserverBinary = binary{
		name:    "kube-apiserver",
		version: KubeAPIServerVersion,
		ldflags: "-X k8s.io/component-base/version.gitVersion=" + KubeAPIServerVersion +
			" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36" +
			" -X k8s.io/component-base/version.gitTreeState=clean",
	}
)

// binaryPaths returns the etcd and kube-apiserver paths to run: from the
// directory given by option or environment, else built once into the cache.
func binaryPaths(o *options) (etcd, apiserver string, err error) {
	dir, source := o.binaryDir, "WithBinaryDir"
	for _, env := range []string{AssetsEnv, KubebuilderAssetsEnv} {
		if dir == "" {
			dir, source = os.Getenv(env), env
		}
	}
	if dir != "" {
		etcd, apiserver = filepath.Join(dir, "etcd"), filepath.Join(dir, "kube-apiserver")
		for _, p := range []string{etcd, apiserver} {
			if _, err := os.Stat(p); err != nil {
				return "", "", fmt.Errorf("testenv: %s=%s: %w", source, dir, err)
			}
		}
		return etcd, apiserver, nil
	}
	if etcd, err = build(etcdBinary, o.progress); err != nil {
		return "", "", err
	}
	if apiserver, err = build(apiserverBinary, o.progress); err != nil {
		return "", "", err
	}
	return etcd, apiserver, nil
}

// EnsureBinaries builds etcd and kube-apiserver into the cache if they are not
// there yet (or resolves them from STEADY_ASSETS / KUBEBUILDER_ASSETS) and
// returns their paths. Start calls it; call it directly to pay the one-time
// build cost up front, e.g. in a CI step.
func EnsureBinaries(opts ...Option) (etcd, apiserver string, err error) {
	o := newOptions(opts)
	return binaryPaths(o)
}

// build returns the path of b in the cache, building it first if needed. A
// file lock makes parallel test binaries wait for one build instead of
// starting their own.
func build(b binary, progress io.Writer) (string, error) {
	sum, err := recipeHash(b)
	if err != nil {
		return "", err
	}
	root, err := cacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, fmt.Sprintf("%s-%s-%s", b.name, b.version, sum[:12]))
	out := filepath.Join(dir, b.name)
	if isExecutable(out) {
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("testenv: cache directory for %s: %w", b.name, err)
	}
	unlock, err := lockFile(filepath.Join(dir, "lock"))
	if err != nil {
		return "", fmt.Errorf("testenv: locking build of %s: %w", b.name, err)
	}
	defer unlock()
	if isExecutable(out) { // another process built it while we waited
		return out, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("testenv: building %s %s needs the go command, which is not in PATH (or set %s to a directory holding etcd and kube-apiserver): %w",
			b.name, b.version, AssetsEnv, err)
	}
	src := filepath.Join(dir, "src")
	if err := writeRecipe(b, src); err != nil {
		return "", err
	}
	logPath := filepath.Join(dir, "build.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", fmt.Errorf("testenv: build log for %s: %w", b.name, err)
	}
	defer logFile.Close()

	fmt.Fprintf(progress, "steady/testenv: building %s %s from the Go module proxy (first run only, a few minutes)…\n", b.name, b.version)
	start := time.Now()
	tmp := out + ".tmp"
	cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags", b.ldflags, "-o", tmp, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("testenv: building %s %s failed (%v); see %s:\n%s", b.name, b.version, err, logPath, tail(logPath, 15))
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("testenv: installing %s: %w", b.name, err)
	}
	fmt.Fprintf(progress, "steady/testenv: built %s in %s: %s\n", b.name, time.Since(start).Round(time.Second), out)
	return out, nil
}

func recipeHash(b binary) (string, error) {
	h := sha256.New()
	h.Write([]byte(b.ldflags))
	err := fs.WalkDir(recipes, "recipes/"+b.name, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := recipes.ReadFile(path)
		h.Write([]byte(path))
		h.Write(data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("testenv: reading embedded recipe for %s: %w", b.name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeRecipe materialises the embedded module into dir, dropping the .txt suffixes.
func writeRecipe(b binary, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("testenv: recipe directory for %s: %w", b.name, err)
	}
	entries, err := recipes.ReadDir("recipes/" + b.name)
	if err != nil {
		return fmt.Errorf("testenv: embedded recipe for %s: %w", b.name, err)
	}
	for _, e := range entries {
		data, err := recipes.ReadFile("recipes/" + b.name + "/" + e.Name())
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, strings.TrimSuffix(e.Name(), ".txt")), data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("testenv: writing recipe for %s: %w", b.name, err)
		}
	}
	return nil
}

func cacheDir() (string, error) {
	if dir := os.Getenv(CacheDirEnv); dir != "" {
		return dir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("testenv: no cache directory for built binaries (set %s): %w", CacheDirEnv, err)
	}
	return filepath.Join(dir, "steady", "testenv"), nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// lockFile takes an exclusive flock on path, blocking until it is free. The
// kernel drops the lock if the holder dies, so a killed build never wedges
// later runs.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
