package cluster

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
)

// ErrNoConfig is wrapped by LoadConfig's error when none of its sources is
// present; the error lists each source and why it was skipped. A source
// that is present but fails (an unreadable file, an unknown context) is a
// different error: the loader never falls through to another cluster than
// the one it was pointed at.
var ErrNoConfig = errors.New("no cluster config found")

// Source says where LoadConfig found the config.
type Source string

// The sources LoadConfig looks at, in its order.
const (
	SourceFlag      Source = "--kubeconfig"   // WithKubeconfig, or the flag RegisterFlags adds
	SourceEnv       Source = "$KUBECONFIG"    // a list of paths, merged as kubectl does
	SourceInCluster Source = "in-cluster"     // the pod's service account
	SourceHome      Source = "~/.kube/config" // the user's default kubeconfig
)

// inClusterDir holds a pod's service account token and CA, where
// rest.InClusterConfig reads them.
const inClusterDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// Loaded is a config and where it came from, as Load returns it.
type Loaded struct {
	Config *rest.Config
	Source Source
	// Paths are the kubeconfig files read (none for SourceInCluster).
	Paths []string
	// Context is the kubeconfig context used: WithKubeconfigContext's, or
	// the files' current-context ("" for SourceInCluster).
	Context string
}

// String says where the config came from, e.g.
// `$KUBECONFIG (/home/me/kind.yaml), context "kind-dev"`.
func (l Loaded) String() string {
	s := string(l.Source)
	if len(l.Paths) > 0 {
		s += " (" + strings.Join(l.Paths, string(filepath.ListSeparator)) + ")"
	}
	if l.Context != "" {
		s += fmt.Sprintf(", context %q", l.Context)
	}
	return s
}

// LoadOption configures LoadConfig and Load.
type LoadOption func(*loadOptions)

type loadOptions struct {
	kubeconfig string
	context    string
	throttle   Throttle
	flags      []func(*loadOptions) // read at load time: flags are parsed after RegisterFlags
	sources    []Source             // nil: all, in order

	// Where in-cluster credentials and the home directory are; tests point
	// them at temporary files.
	inClusterDir string
	home         func() (string, error)
}

// WithSources makes LoadConfig look at these sources only, still in its
// order: a tool that must not touch a cluster the user did not name, say,
// leaves out SourceHome and SourceInCluster. An unknown source is an error.
func WithSources(sources ...Source) LoadOption {
	return func(o *loadOptions) { o.sources = append([]Source{}, sources...) }
}

// WithKubeconfig loads the kubeconfig file at path, the value of a
// --kubeconfig flag, before any other source (default "": not given). A
// path given must load: if it does not, LoadConfig fails rather than
// trying the next source.
func WithKubeconfig(path string) LoadOption { return func(o *loadOptions) { o.kubeconfig = path } }

// WithKubeconfigContext uses the kubeconfig context name instead of the
// files' current-context (default "": current-context), as kubectl's
// --context does. The in-cluster config has no contexts: with a context
// given, in-cluster is an error.
func WithKubeconfigContext(name string) LoadOption {
	return func(o *loadOptions) { o.context = name }
}

// WithThrottle sets the client-side throttling of the loaded config
// (default DefaultThrottle: 20 requests/s, burst 30). ClientGoThrottle
// keeps client-go's 5/s, NoThrottle turns it off. A Throttle that fails
// Validate is an error of LoadConfig.
func WithThrottle(t Throttle) LoadOption { return func(o *loadOptions) { o.throttle = t } }

// RegisterFlags defines --kubeconfig and --context on fs (flag.CommandLine
// when fs is nil, as manager.RegisterFlags) and returns the LoadOption that applies their values, read when LoadConfig runs (so after
// fs.Parse):
//
//	kubeconfig := cluster.RegisterFlags(flag.CommandLine)
//	flag.Parse()
//	cfg, err := cluster.LoadConfig(kubeconfig)
//
// With another flag library, pass its values to WithKubeconfig and
// WithKubeconfigContext.
func RegisterFlags(fs *flag.FlagSet) LoadOption {
	if fs == nil {
		fs = flag.CommandLine
	}
	path := fs.String("kubeconfig", "", "path to a kubeconfig file; default $KUBECONFIG, the in-cluster config, or ~/.kube/config")
	context := fs.String("context", "", "the kubeconfig context to use; default its current-context")
	return func(o *loadOptions) {
		o.flags = append(o.flags, func(o *loadOptions) {
			if *path != "" {
				o.kubeconfig = *path
			}
			if *context != "" {
				o.context = *context
			}
		})
	}
}

// LoadConfig returns the config of the cluster to talk to, from the first
// of these sources that is present:
//
//  1. the kubeconfig file WithKubeconfig (or RegisterFlags' --kubeconfig)
//     names;
//  2. $KUBECONFIG, a list of files separated by os.PathListSeparator and
//     merged as kubectl merges them (the first file to set a value wins;
//     missing files are skipped, but not all of them);
//  3. the in-cluster config of a pod's service account, when
//     KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are set and the
//     token file exists, as rest.InClusterConfig reads it;
//  4. ~/.kube/config.
//
// A kubeconfig source uses WithKubeconfigContext's context, or its
// current-context. The config's client-side throttling is set (see
// WithThrottle), since kubeconfig files cannot say it. A present source
// that fails is an error naming it; when no source is present the error
// wraps ErrNoConfig and says why each was skipped.
func LoadConfig(opts ...LoadOption) (*rest.Config, error) {
	l, err := Load(opts...)
	if err != nil {
		return nil, err
	}
	return l.Config, nil
}

// Load is LoadConfig that also says which source it used, for a program
// that prints it.
func Load(opts ...LoadOption) (Loaded, error) {
	o := loadOptions{throttle: DefaultThrottle, inClusterDir: inClusterDir, home: os.UserHomeDir}
	for _, opt := range opts {
		opt(&o)
	}
	for _, f := range o.flags {
		f(&o)
	}
	if err := o.throttle.Validate(); err != nil {
		return Loaded{}, fmt.Errorf("cluster: WithThrottle: %w", err)
	}
	wanted := map[Source]bool{}
	for _, src := range o.sources {
		if _, ok := loaders[src]; !ok {
			return Loaded{}, fmt.Errorf("cluster: WithSources: unknown source %q", src)
		}
		wanted[src] = true
	}
	var skipped []string
	for _, src := range order {
		if len(wanted) > 0 && !wanted[src] {
			continue
		}
		l, why, err := loaders[src](&o)
		if why != "" {
			skipped = append(skipped, why)
			continue
		}
		if err != nil {
			return Loaded{}, fmt.Errorf("cluster: loading the config from %s: %w%s", l, err, skippedBefore(skipped))
		}
		o.throttle.Apply(l.Config)
		return l, nil
	}
	return Loaded{}, fmt.Errorf("cluster: %w; tried, in order: %s", ErrNoConfig, strings.Join(skipped, "; "))
}

// order is LoadConfig's order of sources.
var order = []Source{SourceFlag, SourceEnv, SourceInCluster, SourceHome}

var loaders = map[Source]func(*loadOptions) (Loaded, string, error){
	SourceFlag: fromFlag, SourceEnv: fromEnv, SourceInCluster: fromInCluster, SourceHome: fromHome,
}

func skippedBefore(skipped []string) string {
	if len(skipped) == 0 {
		return ""
	}
	return " (skipped before it: " + strings.Join(skipped, "; ") + ")"
}

// Each source returns a reason it is absent, or what it loaded, or why
// loading failed; Loaded names the source in that error.

func fromFlag(o *loadOptions) (Loaded, string, error) {
	if o.kubeconfig == "" {
		return Loaded{}, string(SourceFlag) + ": not given", nil
	}
	return fromFiles(SourceFlag, &clientcmd.ClientConfigLoadingRules{ExplicitPath: o.kubeconfig}, []string{o.kubeconfig}, o.context)
}

func fromEnv(o *loadOptions) (Loaded, string, error) {
	var paths []string
	for _, p := range filepath.SplitList(os.Getenv(clientcmd.RecommendedConfigPathEnvVar)) {
		if p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return Loaded{}, string(SourceEnv) + ": not set", nil
	}
	var found []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		// Set, but to nothing: an error, not a reason to try another
		// cluster than the one the user meant.
		return Loaded{Source: SourceEnv, Paths: paths}, "", errors.New("none of its files exists")
	}
	return fromFiles(SourceEnv, &clientcmd.ClientConfigLoadingRules{Precedence: found}, found, o.context)
}

func fromInCluster(o *loadOptions) (Loaded, string, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return Loaded{}, string(SourceInCluster) + ": KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set (not in a pod)", nil
	}
	tokenFile, caFile := filepath.Join(o.inClusterDir, "token"), filepath.Join(o.inClusterDir, "ca.crt")
	token, err := os.ReadFile(tokenFile)
	if errors.Is(err, os.ErrNotExist) {
		// A pod with automountServiceAccountToken: false.
		return Loaded{}, fmt.Sprintf("%s: no service account token at %s", SourceInCluster, tokenFile), nil
	}
	l := Loaded{Source: SourceInCluster}
	switch {
	case err != nil:
		return l, "", fmt.Errorf("service account token: %w", err)
	case o.context != "":
		return l, "", fmt.Errorf("WithKubeconfigContext(%q): the in-cluster config has no contexts", o.context)
	}
	// rest.InClusterConfig logs a CA it cannot read and goes on with the
	// system's roots, which then fail every request with an unknown
	// authority; saying so here is clearer.
	if _, err := certutil.NewPool(caFile); err != nil {
		return l, "", fmt.Errorf("service account CA: %w", err)
	}
	// rest.InClusterConfig, with the directory as a parameter.
	l.Config = &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		TLSClientConfig: rest.TLSClientConfig{CAFile: caFile},
		BearerToken:     string(token),
		BearerTokenFile: tokenFile, // re-read as the kubelet rotates it
	}
	return l, "", nil
}

func fromHome(o *loadOptions) (Loaded, string, error) {
	home, err := o.home()
	if err != nil || home == "" {
		return Loaded{}, fmt.Sprintf("%s: no home directory (%v)", SourceHome, err), nil
	}
	path := filepath.Join(home, clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Loaded{}, fmt.Sprintf("%s: %s does not exist", SourceHome, path), nil
	}
	return fromFiles(SourceHome, &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, []string{path}, o.context)
}

// fromFiles loads kubeconfig files with clientcmd. It does not use
// clientcmd's deferred loading, which would fall back to the in-cluster
// config for an empty file behind the caller's back.
func fromFiles(src Source, rules *clientcmd.ClientConfigLoadingRules, paths []string, context string) (Loaded, string, error) {
	l := Loaded{Source: src, Paths: paths, Context: context}
	raw, err := rules.Load()
	if err != nil {
		return l, "", err
	}
	if l.Context == "" {
		l.Context = raw.CurrentContext
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, context, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
	if err != nil {
		return l, "", err
	}
	l.Config = cfg
	return l, "", nil
}
