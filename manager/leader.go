package manager

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/steadyctl/steady/internal/leases"
)

// election is a running leader elector.
type election struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// stop ends the election, releasing the lease if held, and waits for it.
func (e *election) stop() {
	e.cancel()
	<-e.done
}

// elect campaigns for the lease in the background. On winning it starts the
// leader-only runnables under runCtx; on losing it stops them and fails the
// manager with ErrLeaseLost. A refusal of the API server to let this
// replica read or write its Lease fails the manager too.
func (m *Manager) elect(base, runCtx context.Context, fail func(error)) (*election, error) {
	le := m.opts.leaderElection
	id := le.Identity
	if id == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		id = host + "_" + hex.EncodeToString(b)
	}
	api, err := leases.New(m.cluster.Config(), m.cluster.HTTPClient(), le.Namespace)
	if err != nil {
		return nil, fmt.Errorf("manager: leader election client: %w", err)
	}
	el, err := newElector(api, le.Namespace, le.Name, id, le.LeaseDuration, le.RenewDeadline, le.RetryPeriod)
	if err != nil {
		return nil, fmt.Errorf("manager: leader election: Lease %s/%s: %w", le.Namespace, le.Name, err)
	}
	log := m.log.WithValues("lease", le.Namespace+"/"+le.Name, "identity", id)
	el.log, el.refused = log, fail
	lead := func(leading context.Context) {
		log.Info("became leader")
		// Leader work stops when the lease is lost or the manager shuts
		// down, whichever is first.
		ctx, cancel := context.WithCancel(runCtx)
		context.AfterFunc(leading, func() {
			m.factory.KeepInformers() // the manager is going down: see Start
			cancel()
		})
		close(m.elected)
		for _, r := range m.runnables(true) {
			m.run(ctx, r, fail)
		}
	}
	ctx, cancel := context.WithCancel(base)
	e := &election{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		if err := el.run(ctx, lead); errors.Is(err, errNotLeading) && runCtx.Err() == nil {
			log.Info("lost the leader lease", "reason", err.Error())
			fail(ErrLeaseLost)
		}
	}()
	return e, nil
}
