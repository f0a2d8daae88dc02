package dns

import (
	"context"
	"fmt"
	"sync"
)

// Provider publishes DNS records. Both calls are idempotent, since a
// reconcile may run again after a call that succeeded.
type Provider interface {
	// Ensure makes name an alias (a CNAME record) of target, creating the
	// record or replacing what it pointed to.
	Ensure(ctx context.Context, name, target string) error
	// Remove deletes the record of name; that there is none is success.
	Remove(ctx context.Context, name string) error
}

// Memory is a Provider that keeps its records in memory. Its zero value
// is ready to use, and it is safe for concurrent use.
type Memory struct {
	mu        sync.Mutex
	records   map[string]string // name -> target
	removeErr error             // what Remove fails with, if not nil
}

var _ Provider = (*Memory)(nil)

// Ensure records name as an alias of target.
func (m *Memory) Ensure(_ context.Context, name, target string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.records == nil {
		m.records = map[string]string{}
	}
	m.records[name] = target
	return nil
}

// Remove forgets the record of name, or fails as FailRemovals says.
func (m *Memory) Remove(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.removeErr != nil {
		return fmt.Errorf("removing the DNS record of %s: %w", name, m.removeErr)
	}
	delete(m.records, name)
	return nil
}

// Lookup returns the target of name's record, and whether there is one.
func (m *Memory) Lookup(name string) (target string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	target, ok = m.records[name]
	return target, ok
}

// FailRemovals makes every Remove fail with err, as a provider that is
// down would, until it is called again with nil.
func (m *Memory) FailRemovals(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeErr = err
}
