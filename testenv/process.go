package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// errPortInUse marks a start that failed because a picked port was taken
// between picking and binding; Start retries with fresh ports.
var errPortInUse = errors.New("port already in use")

// process is one child: etcd or kube-apiserver.
type process struct {
	name    string
	path    string
	args    []string
	logPath string

	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been reaped
	err    error         // exit status, valid after exited is closed
}

// start launches the process with its output in logPath. The child gets
// SIGKILL from the kernel if the thread that started it dies (Pdeathsig); the
// starting goroutine stays locked to that thread until the child is reaped,
// so "the thread" means "this test process", which is what prevents orphans
// when a test binary is killed or times out.
func (p *process) start() error {
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("testenv: %s log: %w", p.name, err)
	}
	p.cmd = exec.Command(p.path, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	p.cmd.SysProcAttr = childAttrs()
	p.exited = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer logFile.Close()
		if err := p.cmd.Start(); err != nil {
			started <- err
			close(p.exited)
			return
		}
		started <- nil
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("testenv: starting %s (%s): %w", p.name, p.path, err)
	}
	return nil
}

// stop asks the process to exit, then kills it after grace. It is safe to
// call on a process that never started or already exited.
func (p *process) stop(grace time.Duration) {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	if grace > 0 {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			return
		case <-time.After(grace):
		}
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// waitReady polls check until it succeeds, the process exits, ctx ends or
// timeout passes; every failure names the process and its log.
func (p *process) waitReady(ctx context.Context, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		last = check(cctx)
		ccancel()
		if last == nil {
			return nil
		}
		select {
		case <-p.exited:
			log := tail(p.logPath, 20)
			if strings.Contains(log, "address already in use") {
				return fmt.Errorf("testenv: %s: %w (log %s)", p.name, errPortInUse, p.logPath)
			}
			return fmt.Errorf("testenv: %s exited during start-up (%v); log %s:\n%s", p.name, p.err, p.logPath, log)
		case <-ctx.Done():
			return fmt.Errorf("testenv: %s not ready after %s (last check: %v); log %s:\n%s",
				p.name, timeout, last, p.logPath, tail(p.logPath, 20))
		case <-tick.C:
		}
	}
}

// httpCheck returns a readiness check that GETs url and wants a 200.
func httpCheck(client *http.Client, url, token string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(body.String()))
		}
		return nil
	}
}

// freePorts reserves n distinct loopback ports by listening on port 0. The
// listeners are closed before returning, so another process can still take a
// port before our child binds it; Start detects that and retries.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("testenv: picking a loopback port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// tail returns the last n lines of the file at path, for error messages.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// processAlive reports whether pid names a live process (signal 0 probes
// without sending anything; EPERM means it exists but is not ours).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
