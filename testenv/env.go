package testenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Environment is a running etcd and kube-apiserver pair. Stop it when done.
type Environment struct {
	// Config reaches kube-apiserver as an admin (group system:masters)
	// through the environment's connection proxy.
	Config *rest.Config
	// KubeconfigPath names a kubeconfig file for Config, for kubectl and
	// other tools: kubectl --kubeconfig "$path" get ns.
	KubeconfigPath string
	// EtcdURL is etcd's client URL.
	EtcdURL string
	// Clientset is a client-go clientset for Config.
	Clientset *kubernetes.Clientset

	opts      *options
	dir       string
	creds     *credentials
	etcd      *process
	apiserver *process
	apiPort   int
	proxy     *proxy
	ready     *http.Client // checks /readyz directly, bypassing the proxy

	mu      sync.Mutex // serialises Stop and the fault methods
	stopped bool

	crdMu sync.Mutex
	crds  map[string]*crdInstall // by name: what InstallCRDs was asked for
}

// Start runs etcd and kube-apiserver on loopback ports it picks, waits until
// kube-apiserver's /readyz answers ok, and returns the environment. The
// binaries come from WithBinaryDir, $STEADY_ASSETS or $KUBEBUILDER_ASSETS,
// or are built once from the Go module proxy into the user's cache.
// On error nothing is left running.
func Start(ctx context.Context, opts ...Option) (*Environment, error) {
	o := newOptions(opts)
	etcdPath, apiPath, err := binaryPaths(o)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(os.TempDir(), "steady-testenv")
	sweepOrphans(root)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	dir, err := os.MkdirTemp(root, "env-")
	if err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	e := &Environment{opts: o, dir: dir}
	if err := e.start(ctx, etcdPath, apiPath); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

func (e *Environment) start(ctx context.Context, etcdPath, apiPath string) error {
	if err := os.WriteFile(filepath.Join(e.dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	creds, err := writeCredentials(e.dir)
	if err != nil {
		return err
	}
	e.creds = creds
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(creds.caPEM)
	e.ready = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}

	if err := retryOnPortClash(func() error { return e.startEtcd(ctx, etcdPath) }); err != nil {
		return err
	}
	if err := retryOnPortClash(func() error { return e.startAPIServer(ctx, apiPath) }); err != nil {
		return err
	}
	if e.proxy, err = newProxy(e.apiAddr()); err != nil {
		return fmt.Errorf("testenv: connection proxy: %w", err)
	}
	e.Config = &rest.Config{
		Host:            "https://" + e.proxy.addr(),
		BearerToken:     creds.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: creds.caPEM},
		QPS:             -1, // no client-side throttling: tests create many objects fast
	}
	if e.Clientset, err = kubernetes.NewForConfig(e.Config); err != nil {
		return fmt.Errorf("testenv: clientset: %w", err)
	}
	e.KubeconfigPath = filepath.Join(e.dir, "kubeconfig")
	return writeKubeconfig(e.KubeconfigPath, e.Config)
}

func retryOnPortClash(start func() error) error {
	var err error
	for range 5 {
		if err = start(); !errors.Is(err, errPortInUse) {
			return err
		}
	}
	return err
}

func (e *Environment) startEtcd(ctx context.Context, path string) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	client, peer := fmt.Sprintf("http://127.0.0.1:%d", ports[0]), fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	dataDir := filepath.Join(e.dir, "etcd")
	_ = os.RemoveAll(dataDir) // a failed attempt may have left one
	args := append([]string{
		"--name=default", "--data-dir=" + dataDir,
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=default=" + peer,
		"--unsafe-no-fsync", // test data need not survive a power cut
		"--log-level=warn",
	}, e.opts.etcdFlags...)
	e.etcd = &process{name: "etcd", path: path, args: args, logPath: filepath.Join(e.dir, "etcd.log")}
	if err := e.etcd.start(); err != nil {
		return err
	}
	e.EtcdURL = client
	if err := e.etcd.waitReady(ctx, e.opts.startTimeout, httpCheck(http.DefaultClient, client+"/health", "")); err != nil {
		e.etcd.stop(0)
		return err
	}
	return nil
}

func (e *Environment) startAPIServer(ctx context.Context, path string) error {
	if e.apiPort == 0 {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		e.apiPort = ports[0]
	}
	c := e.creds
	args := append([]string{
		"--etcd-servers=" + e.EtcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(e.apiPort),
		"--cert-dir=" + filepath.Join(e.dir, "certs"),
		"--tls-cert-file=" + c.certFile, "--tls-private-key-file=" + c.keyFile,
		"--token-auth-file=" + c.tokenFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + c.saPubFile,
		"--service-account-signing-key-file=" + c.saKeyFile,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		// Without a controller manager nobody creates the "default" service
		// account, so this admission plugin would reject every Pod.
		"--disable-admission-plugins=ServiceAccount",
	}, e.opts.apiserverFlags...)
	e.apiserver = &process{name: "kube-apiserver", path: path, args: args, logPath: filepath.Join(e.dir, "kube-apiserver.log")}
	if err := e.apiserver.start(); err != nil {
		return err
	}
	check := httpCheck(e.ready, "https://"+e.apiAddr()+"/readyz", c.token)
	if err := e.apiserver.waitReady(ctx, e.opts.startTimeout, check); err != nil {
		e.apiserver.stop(0)
		if errors.Is(err, errPortInUse) {
			e.apiPort = 0
		}
		return err
	}
	return nil
}

func (e *Environment) apiAddr() string { return "127.0.0.1:" + strconv.Itoa(e.apiPort) }

// Stop kills kube-apiserver and etcd and removes their data, certificates and
// logs. It is safe to call more than once and on a partly started environment.
func (e *Environment) Stop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return nil
	}
	e.stopped = true
	if e.proxy != nil {
		e.proxy.close()
	}
	if e.apiserver != nil {
		e.apiserver.stop(0)
	}
	if e.etcd != nil {
		e.etcd.stop(0)
	}
	if err := os.RemoveAll(e.dir); err != nil {
		return fmt.Errorf("testenv: removing %s: %w", e.dir, err)
	}
	return nil
}

func writeKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["testenv"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["testenv"] = &clientcmdapi.Context{Cluster: "testenv", AuthInfo: "admin"}
	kc.CurrentContext = "testenv"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("testenv: writing kubeconfig: %w", err)
	}
	return nil
}

// ownerFile holds the PID of the process that started an environment, so a
// later Start can remove directories whose owner was killed before Stop.
const ownerFile = "owner.pid"

func sweepOrphans(root string) {
	entries, _ := os.ReadDir(root)
	for _, ent := range entries {
		dir := filepath.Join(root, ent.Name())
		data, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // being created, or not ours
		}
		pid, err := strconv.Atoi(string(data))
		if err == nil && !processAlive(pid) {
			_ = os.RemoveAll(dir)
		}
	}
}

// timeouts for the fault tools.
const (
	restartGrace = 5 * time.Second
)
