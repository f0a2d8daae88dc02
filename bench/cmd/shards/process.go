package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/steadyctl/steady/bench/internal/e2e"
)

// process is a running replica process and the parent's end of its line
// protocol (see Report).
type process struct {
	id      string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	reports chan Report // closed when the replica's stdout ends
	readErr error       // why it ended, once reports is closed
}

// startProcess runs this program's binary as replica id with args. The
// replica stops when its stdin closes: when stop or kill closes it, or when
// the parent dies; ctx kills it.
func startProcess(ctx context.Context, id string, args ...string) (*process, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"replica"}, args...)...)
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	p := &process{id: id, cmd: cmd, reports: make(chan Report, 1)}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting replica %s: %w", id, err)
	}
	go p.read(stdout)
	return p, nil
}

func (p *process) read(stdout io.Reader) {
	p.readErr = e2e.ReadLines(stdout, p.reports, "replica "+p.id)
	close(p.reports)
}

// next waits for the replica's next Report, of phase.
func (p *process) next(ctx context.Context, phase string, timeout time.Duration) (Report, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r, ok := <-p.reports:
		switch {
		case !ok && p.readErr != nil:
			return r, p.readErr
		case !ok:
			return r, fmt.Errorf("replica %s exited before its %s report", p.id, phase)
		case r.Phase != phase:
			return r, fmt.Errorf("replica %s: got a %s report, want %s", p.id, r.Phase, phase)
		}
		return r, nil
	case <-t.C:
		return Report{}, fmt.Errorf("replica %s: no %s report within %v", p.id, phase, timeout)
	case <-ctx.Done():
		return Report{}, ctx.Err()
	}
}

// ask sends command (cmdStatus or cmdReport) and returns the answer.
func (p *process) ask(ctx context.Context, command string) (Report, error) {
	if _, err := io.WriteString(p.stdin, command+"\n"); err != nil {
		return Report{}, fmt.Errorf("replica %s: %w", p.id, err)
	}
	return p.next(ctx, command, time.Minute)
}

// stop closes the replica's stdin, which stops its manager and releases
// its Lease, and returns its final Report once it has exited.
func (p *process) stop(ctx context.Context) (Report, error) {
	p.stdin.Close()
	r, err := p.next(ctx, PhaseFinal, 2*time.Minute)
	if err != nil {
		return r, err
	}
	for range p.reports { // to EOF: Wait must come after the reads
	}
	if err := p.cmd.Wait(); err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return r, fmt.Errorf("replica %s: %w", p.id, err)
	}
	return r, nil
}

// kill ends the replica if it still runs, and reaps it; it does nothing
// after stop.
func (p *process) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.stdin.Close()
	_ = p.cmd.Process.Kill()
	for range p.reports {
	}
	_ = p.cmd.Wait()
}

// askAll asks every process at once and returns the answers in order.
func askAll(ctx context.Context, ps []*process, command string) ([]Report, error) {
	reports := make([]Report, len(ps))
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() { reports[i], errs[i] = p.ask(ctx, command) })
	}
	wg.Wait()
	return reports, errors.Join(errs...)
}
