package manager

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
		Lock:            checkedLock{Interface: lock, namespace: le.Namespace, name: le.Name, refused: fail},
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

// checkedLock is the Lease lock of an election that fails the manager when
// the API server forbids a call on the Lease: client-go's elector retries
// every error forever, so a replica without the RBAC for its Lease would
// stand by for good, healthy and ready, with its controllers never
// started.
type checkedLock struct {
	resourcelock.Interface
	namespace, name string // the Lease's
	refused         func(error)
}

func (l checkedLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	r, raw, err := l.Interface.Get(ctx)
	l.check("get", err)
	return r, raw, err
}

func (l checkedLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Create(ctx, ler)
	l.check("create", err)
	return err
}

func (l checkedLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Update(ctx, ler)
	l.check("update", err)
	return err
}

// check fails the manager if err is the API server's refusal of verb.
func (l checkedLock) check(verb string, err error) {
	if !apierrors.IsForbidden(err) {
		return
	}
	l.refused(fmt.Errorf("manager: leader election: the API server refuses to %s the Lease %s/%s: grant the operator's service account get, create and update on leases (apiGroups: coordination.k8s.io) in namespace %s: %w",
		verb, l.namespace, l.name, l.namespace, err))
}
