package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// impls are the implementations, by the name of their child's package.
var impls = []string{"steady", "controller-runtime"}

// buildChildren builds every child binary into dir, from the bench module
// at benchDir, with the scheme the -scheme flag names, and returns their
// paths by implementation.
func buildChildren(ctx context.Context, benchDir, dir, scheme string, managed bool) (map[string]string, error) {
	bins := make(map[string]string, len(impls))
	for _, impl := range impls {
		bin := filepath.Join(dir, impl)
		args := []string{"build", "-o", bin}
		if tags := buildTags(scheme, managed); tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.CommandContext(ctx, "go", append(args, "./cmd/e2e/"+impl)...)
		cmd.Dir = benchDir
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("building the %s child in %s (run from the bench module or pass -bench-dir): %w", impl, benchDir, err)
		}
		bins[impl] = bin
	}
	return bins, nil
}

// buildTags returns the children's build tags: e2e_clientgoscheme for
// -scheme client-go, e2e_manager for -steady manager (only the steady child
// has code under it), comma-separated.
func buildTags(scheme string, managed bool) string {
	var tags []string
	if scheme == "client-go" {
		tags = append(tags, "e2e_clientgoscheme")
	}
	if managed {
		tags = append(tags, "e2e_manager")
	}
	return strings.Join(tags, ",")
}

// child is a running child process and its end of the line protocol.
type child struct {
	impl    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	reports chan e2e.Report // closed when stdout ends
	readErr error           // why stdout ended, once reports is closed

	closeOnce sync.Once
}

// startChild starts bin with args. The child dies with ctx, and with the
// parent (see setDeathSignal); call kill when done with it in any case.
func startChild(ctx context.Context, impl, bin string, args ...string) (*child, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	setDeathSignal(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{impl: impl, cmd: cmd, stdin: stdin, reports: make(chan e2e.Report, 4)}
	go c.read(stdout)
	return c, nil
}

func (c *child) read(stdout io.Reader) {
	c.readErr = e2e.ReadLines(stdout, c.reports, c.impl+" child")
	close(c.reports)
}

// next waits for the child's next report, which must be of phase.
func (c *child) next(ctx context.Context, phase string, timeout time.Duration) (e2e.Report, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r, ok := <-c.reports:
		switch {
		case !ok && c.readErr != nil:
			return e2e.Report{}, c.readErr
		case !ok:
			return e2e.Report{}, fmt.Errorf("%s child exited before its %s report", c.impl, phase)
		case r.Phase != phase:
			return e2e.Report{}, fmt.Errorf("%s child: got a %s report, want %s", c.impl, r.Phase, phase)
		}
		return r, nil
	case <-t.C:
		return e2e.Report{}, fmt.Errorf("%s child: no %s report within %v", c.impl, phase, timeout)
	case <-ctx.Done():
		return e2e.Report{}, ctx.Err()
	}
}

// report asks the child for its counters.
func (c *child) report(ctx context.Context) (e2e.Report, error) {
	if _, err := io.WriteString(c.stdin, e2e.CommandReport+"\n"); err != nil {
		return e2e.Report{}, fmt.Errorf("%s child: %w", c.impl, err)
	}
	return c.next(ctx, e2e.PhaseReport, time.Minute)
}

// stop closes the child's stdin, which stops its controller, and returns
// its final report once it has exited.
func (c *child) stop(ctx context.Context) (e2e.Report, error) {
	c.stdin.Close()
	r, err := c.next(ctx, e2e.PhaseFinal, 2*time.Minute)
	if err != nil {
		return r, err
	}
	for range c.reports { // until stdout closes; Wait must come after
	}
	werr := c.wait()
	if werr != nil {
		return r, fmt.Errorf("%s child: %w", c.impl, werr)
	}
	return r, nil
}

// kill ends the child if it is still running and reaps it. It is safe to
// call after stop and more than once.
func (c *child) kill() {
	c.closeOnce.Do(func() {
		c.stdin.Close()
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			for range c.reports {
			}
			_ = c.cmd.Wait()
		}
	})
}

// wait reaps the exited child.
func (c *child) wait() error {
	var err error
	c.closeOnce.Do(func() { err = c.cmd.Wait() })
	if errors.Is(err, exec.ErrWaitDelay) {
		return nil
	}
	return err
}
