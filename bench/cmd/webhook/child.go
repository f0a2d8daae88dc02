package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// impls are the implementations, by the name of their child's package.
var impls = []string{"steady", "controller-runtime"}

// buildChildren builds every child binary into dir, from the bench module
// at benchDir, and returns their paths by implementation.
func buildChildren(ctx context.Context, benchDir, dir string) (map[string]string, error) {
	bins := make(map[string]string, len(impls))
	for _, impl := range impls {
		bin := filepath.Join(dir, impl)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/webhook/"+impl)
		cmd.Dir = benchDir
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("building the %s child in %s (run from the bench module or pass -bench-dir): %w", impl, benchDir, err)
		}
		bins[impl] = bin
	}
	return bins, nil
}

// child is a running webhook server process.
type child struct {
	impl   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{} // closed once the process has been reaped
	err    error         // its exit status, once exited is closed
}

// startChild starts bin with args. The child dies with ctx, and with the
// parent (see setDeathSignal); call stop when done with it.
func startChild(ctx context.Context, impl, bin string, args ...string) (*child, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.WaitDelay = 5 * time.Second
	setDeathSignal(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s child: %w", impl, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s child: %w", impl, err)
	}
	c := &child{impl: impl, cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// pid is the child's process id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// command sends the child one of admit's commands.
func (c *child) command(cmd string) error {
	if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
		return fmt.Errorf("%s child: %w", c.impl, err)
	}
	return nil
}

// waitReady calls probe until it succeeds, the child exits or timeout
// passes.
func (c *child) waitReady(ctx context.Context, timeout time.Duration, probe func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := probe()
		if err == nil {
			return nil
		}
		select {
		case <-c.exited:
			return fmt.Errorf("%s child exited before serving: %v", c.impl, c.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s child not serving after %v: %w", c.impl, timeout, err)
		}
	}
}

// stop closes the child's stdin, which stops its server, and waits for it
// to exit; after a minute it kills it.
func (c *child) stop() error {
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(time.Minute):
		_ = c.cmd.Process.Kill()
		<-c.exited
		return fmt.Errorf("%s child did not exit within a minute of its stdin closing", c.impl)
	}
	if c.err != nil && !errors.Is(c.err, exec.ErrWaitDelay) {
		return fmt.Errorf("%s child: %w", c.impl, c.err)
	}
	return nil
}

// kill ends the child if it is still running and reaps it; safe after
// stop.
func (c *child) kill() {
	select {
	case <-c.exited:
	default:
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// childArgs are a child's flags.
func childArgs(port int, certDir, profile string) []string {
	args := []string{"-port", fmt.Sprint(port), "-cert-dir", certDir}
	if profile != "" {
		args = append(args, "-cpuprofile", profile)
	}
	return args
}
