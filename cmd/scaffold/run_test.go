package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadyctl/steady/testenv"
)

// runOperator runs the project's binary as its manifests deploy it, with
// no more rights than they give: every manifest is applied to the test's
// control plane, and the binary's kubeconfig impersonates the
// manifests' service account, as its pod's token would authenticate it.
// With --leader-elect and $POD_NAMESPACE, it must elect itself with a
// Lease in its namespace and serve /readyz; then checks, the project's
// (reconciled, or webhookCertificatesInjected); on SIGTERM it must stop
// cleanly and release the Lease. Its log must show no request the API
// server refused.
func runOperator(t *testing.T, p *project, dir, binary string, checks func(t *testing.T, env *testenv.Environment, a *applier, op *process)) {
	env := testenv.Shared(t)
	ctx := t.Context()
	config, err := readManifests(dir, "config")
	if err != nil {
		t.Fatal(err)
	}
	a := newApplier(t, env)
	for _, m := range config {
		if err := a.apply(ctx, m, false); err != nil {
			t.Fatal(err)
		}
	}
	samples, err := readManifests(dir, "samples")
	if err != nil {
		t.Fatal(err)
	}
	a.waitServed(t, samples)

	kubeconfig := impersonatingKubeconfig(t, env.KubeconfigPath, p.Namespace(), p.ServiceAccount())
	health := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
	metrics := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
	op := startProcess(t, binary, []string{"POD_NAMESPACE=" + p.Namespace()},
		"--kubeconfig", kubeconfig, "--leader-elect", "--health-probe-bind-address="+health, "--metrics-bind-address="+metrics, "-v=1")

	host, _ := os.Hostname()
	leases := env.Clientset.CoordinationV1().Leases(p.Namespace())
	testenv.Eventually(t, time.Minute, "the operator to hold the Lease "+p.LeaseName()+" in "+p.Namespace(), func() error {
		op.checkRunning(t)
		l, err := leases.Get(ctx, p.LeaseName(), metav1.GetOptions{})
		switch {
		case err != nil:
			return err
		case l.Spec.HolderIdentity == nil || !strings.HasPrefix(*l.Spec.HolderIdentity, host+"_"):
			return fmt.Errorf("held by %v, want this host's operator", l.Spec.HolderIdentity)
		}
		return nil
	})
	checks(t, env, a, op)
	testenv.Eventually(t, 30*time.Second, "/readyz to pass", func() error {
		op.checkRunning(t)
		return get(http.DefaultClient, "http://"+health+"/readyz", "")
	})
	// The metrics endpoint asks the API server who the caller is and
	// whether it may: rights of config/rbac/metrics.yaml.
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // self-signed
	if err := get(insecure, "https://"+metrics+"/metrics", env.Config.BearerToken); err != nil {
		t.Errorf("scraping as an admin: %v", err)
	}

	if err := op.stop(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	l, err := leases.Get(ctx, p.LeaseName(), metav1.GetOptions{})
	if err != nil || (l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "") {
		t.Errorf("after SIGTERM the Lease is %v, %v; want it released", l.Spec.HolderIdentity, err)
	}
	if log := op.log.String(); strings.Contains(strings.ToLower(log), "forbidden") {
		t.Errorf("the API server refused the operator something:\n%s", log)
	}
}

// get asks url with a bearer token, if any, and fails unless the answer
// is 200 OK.
func get(c *http.Client, url, token string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("%s: %s: %s", url, resp.Status, body)
	}
	return nil
}

// reconciled checks that the operator reconciles a custom resource in a
// namespace of its own: the ConfigMap it controls, its Ready condition,
// an Event about it.
func reconciled(p *project) func(t *testing.T, env *testenv.Environment, a *applier, op *process) {
	return func(t *testing.T, env *testenv.Environment, a *applier, op *process) {
		ctx := t.Context()
		ns := env.NewNamespace(t, p.Name+"-")
		gvr := schema.GroupVersionResource{Group: p.Group, Version: p.Version, Resource: p.Plural()}
		cr := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": p.Group + "/" + p.Version, "kind": p.Kind,
			"metadata": map[string]any{"name": "sample", "namespace": ns},
			"spec":     map[string]any{"message": "hello"},
		}}
		created, err := a.dyn.Resource(gvr).Namespace(ns).Create(ctx, cr, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 30*time.Second, "the operator to make the ConfigMap", func() error {
			op.checkRunning(t)
			cm, err := env.Clientset.CoreV1().ConfigMaps(ns).Get(ctx, "sample", metav1.GetOptions{})
			switch {
			case err != nil:
				return err
			case cm.Data["message"] != "hello":
				return fmt.Errorf("data %v", cm.Data)
			case metav1.GetControllerOf(cm) == nil || metav1.GetControllerOf(cm).UID != created.GetUID():
				return fmt.Errorf("controller %v, want the %s", metav1.GetControllerOf(cm), p.Kind)
			}
			return nil
		})
		testenv.Eventually(t, 30*time.Second, "the operator to set the Ready condition", func() error {
			obj, err := a.dyn.Resource(gvr).Namespace(ns).Get(ctx, "sample", metav1.GetOptions{})
			if err != nil {
				return err
			}
			conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, c := range conditions {
				if c, _ := c.(map[string]any); c["type"] == "Ready" && c["status"] == "True" {
					return nil
				}
			}
			return fmt.Errorf("conditions %v", conditions)
		})
		testenv.Eventually(t, 30*time.Second, "the operator's Event about the "+p.Kind, func() error {
			events, err := env.Clientset.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			for _, e := range events.Items {
				if e.Regarding.UID == created.GetUID() && e.Reason == "ConfigMapSynced" {
					return nil
				}
			}
			return fmt.Errorf("%d events, none about the %s", len(events.Items), p.Kind)
		})
	}
}

// webhookCertificatesInjected checks that the operator makes its webhook
// certificates: the Secret in its namespace, the CA bundle in both
// webhook configurations. (The API server cannot call the webhooks: no
// pod backs their Service here.)
func webhookCertificatesInjected(p *project) func(t *testing.T, env *testenv.Environment, a *applier, op *process) {
	return func(t *testing.T, env *testenv.Environment, a *applier, op *process) {
		ctx := t.Context()
		ar := env.Clientset.AdmissionregistrationV1()
		testenv.Eventually(t, 30*time.Second, "the CA bundle in the webhook configurations", func() error {
			op.checkRunning(t)
			if _, err := env.Clientset.CoreV1().Secrets(p.Namespace()).Get(ctx, p.WebhookSecret(), metav1.GetOptions{}); err != nil {
				return err
			}
			v, err := ar.ValidatingWebhookConfigurations().Get(ctx, p.ValidatingWebhooks(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			m, err := ar.MutatingWebhookConfigurations().Get(ctx, p.MutatingWebhooks(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			if len(v.Webhooks[0].ClientConfig.CABundle) == 0 || len(m.Webhooks[0].ClientConfig.CABundle) == 0 {
				return fmt.Errorf("no CA bundle yet")
			}
			return nil
		})
	}
}

// impersonatingKubeconfig writes a copy of the kubeconfig at path whose
// user acts as the service account namespace/name, with the groups a
// service account's token gives, as kubectl's --as and --as-group do.
func impersonatingKubeconfig(t *testing.T, path, namespace, name string) string {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, user := range kc.AuthInfos {
		user.Impersonate = "system:serviceaccount:" + namespace + ":" + name
		user.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	}
	out := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// freePort returns a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// process is a running binary of the test's.
type process struct {
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
	err  error // once done is closed
}

// startProcess starts binary with args and env added to the test's
// environment. It is killed when the test ends, if still running, and
// its output logged if the test failed.
func startProcess(t *testing.T, binary string, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(binary, args...), log: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		p.err = p.cmd.Wait()
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s's output:\n%s", filepath.Base(binary), p.log)
		}
	})
	return p
}

// checkRunning fails t at once if the process has exited.
func (p *process) checkRunning(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		t.Fatalf("%s exited: %v", p.cmd.Path, p.err)
	default:
	}
}

// stop sends SIGTERM and waits up to timeout for a clean exit.
func (p *process) stop(timeout time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.done:
		if p.err != nil {
			return fmt.Errorf("%s after SIGTERM: %w", p.cmd.Path, p.err)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("%s still running %v after SIGTERM", p.cmd.Path, timeout)
	}
}
