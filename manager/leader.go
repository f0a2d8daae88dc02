package manager

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
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
// manager with ErrLeaseLost.
func (m *Manager) elect(base, runCtx context.Context, fail func(error)) (*election, error) {
	le := m.opts.leaderElection
	id := le.Identity
	if id == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		id = host + "_" + hex.EncodeToString(b)
	}
	cs, err := m.clientset()
	if err != nil {
		return nil, fmt.Errorf("manager: leader election client: %w", err)
	}
	lock := &resourcelock.LeaseLock{
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	lock.LeaseMeta.Name, lock.LeaseMeta.Namespace = le.Name, le.Namespace
	log := m.log.WithValues("lease", le.Namespace+"/"+le.Name, "identity", id)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				log.Info("became leader")
				// Leader work stops when the lease is lost or the
				// manager shuts down, whichever is first.
				ctx, cancel := context.WithCancel(runCtx)
				context.AfterFunc(leading, func() {
					m.factory.KeepInformers() // the manager is going down: see Start
					cancel()
				})
				close(m.elected)
				for _, r := range m.runnables(true) {
					m.run(ctx, r, fail)
				}
			},
			OnStoppedLeading: func() {
				if runCtx.Err() == nil {
					log.Info("lost the leader lease")
					fail(ErrLeaseLost)
				}
			},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("manager: leader election: %w", err)
	}
	ctx, cancel := context.WithCancel(base)
	e := &election{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		elector.Run(ctx)
	}()
	return e, nil
}
