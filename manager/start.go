package manager

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Start runs everything until ctx is done or something fails, then shuts
// down in order (see the package documentation) and returns. Its error is
// the first failure — a controller that could not start, a lost lease, a
// server that could not listen — or nil after a clean shutdown. A Manager
// starts once.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return errors.New("manager: started twice")
	}
	m.started = true
	m.always = append(m.always, m.webhookRunnables()...)
	m.mu.Unlock()
	defer m.stopEvents() // last: the final reconciles' events still go out

	srv, err := m.serve()
	if err != nil {
		return err
	}
	defer srv.shutdown(m.log)

	// Caches outlive the controllers, whose last reconciles still read
	// them; controllers outlive ctx by as long as those reconciles take.
	base := context.WithoutCancel(ctx)
	cacheCtx, stopCaches := context.WithCancel(base)
	cachesDone := make(chan struct{})
	go func() {
		defer close(cachesDone)
		if err := m.factory.Start(cacheCtx); err != nil {
			m.log.Error(err, "caches")
		}
	}()
	defer func() { stopCaches(); <-cachesDone }()
	<-m.factory.Started() // reads from here on wait for the caches, not fail

	runCtx, stopRun := context.WithCancel(base)
	defer stopRun()
	errs := make(chan error, 1)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	for _, r := range m.runnables(false) {
		m.run(runCtx, r, fail)
	}

	var elector *election
	if m.opts.leaderElection == nil {
		close(m.elected)
		for _, r := range m.runnables(true) {
			m.run(runCtx, r, fail)
		}
	} else if elector, err = m.elect(base, runCtx, fail); err != nil {
		return err
	}
	m.log.Info("manager started", "metrics", m.MetricsAddr(), "health", m.HealthAddr(), "pprof", m.PprofAddr())

	select {
	case <-ctx.Done():
	case err = <-errs:
		m.log.Error(err, "manager stopping")
	}

	m.mu.Lock()
	m.stopping = true
	m.mu.Unlock()
	m.factory.KeepInformers() // a controller that stops first must not take others' caches with it
	stopRun()
	if !m.waitRunnables() {
		err = errors.Join(err, fmt.Errorf("manager: runnables still running %v after shutdown began", m.opts.shutdownTimeout))
	}
	if elector != nil {
		elector.stop() // releases the lease: the controllers are done
	}
	return err
}

// runnables returns the leader-only or the always-run runnables.
func (m *Manager) runnables(leader bool) []Runnable {
	m.mu.Lock()
	defer m.mu.Unlock()
	if leader {
		return m.leader
	}
	return m.always
}

// run starts r unless shutdown has begun; a failure of r stops the manager.
func (m *Manager) run(ctx context.Context, r Runnable, fail func(error)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopping {
		return
	}
	m.wg.Go(func() {
		if err := r.Start(ctx); err != nil && ctx.Err() == nil {
			fail(fmt.Errorf("manager: %T: %w", r, err))
		}
	})
}

// waitRunnables waits for every runnable, at most ShutdownTimeout.
func (m *Manager) waitRunnables() bool {
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	t := time.NewTimer(m.opts.shutdownTimeout)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
