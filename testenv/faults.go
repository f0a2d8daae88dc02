package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// DropConnections closes every client connection currently open through the
// environment's proxy, watches included, as a network cut or a load balancer
// reset would, and returns once they are closed. Clients reconnect on
// their own. It returns how many connections it cut.
func (e *Environment) DropConnections() int {
	return e.proxy.dropConnections()
}

// SetLatency delays every chunk of data the proxy forwards, in both
// directions, by d (0 turns it off).
func (e *Environment) SetLatency(d time.Duration) {
	e.proxy.latency.Store(int64(d))
}

// RestartAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after a few
// seconds) and starts it again on the same port and the same etcd data, and
// returns once it is ready. Open connections break; the objects remain.
func (e *Environment) RestartAPIServer(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return fmt.Errorf("testenv: RestartAPIServer on a stopped environment")
	}
	e.apiserver.stop(restartGrace)
	err := retryOnPortClash(func() error { return e.startAPIServer(ctx, e.apiserver.path) })
	if err != nil {
		return fmt.Errorf("testenv: restarting kube-apiserver: %w", err)
	}
	e.proxy.setTarget(e.apiAddr())
	return nil
}

// Compact discards etcd's history up to its current revision and then
// restarts kube-apiserver, returning the revision compacted at.
//
// Both steps are needed to reproduce what a client sees after a long
// disconnection from a real cluster: kube-apiserver serves watches from its
// watch cache, which keeps its own window of recent events (at least 75
// seconds' worth) regardless of etcd's compaction. The restart rebuilds that
// cache from the compacted store, so afterwards every resourceVersion older
// than the returned revision is gone everywhere: a watch from one ends with
// 410 Gone ("too old resource version"), and so does a list that asks for one
// exactly or continues an old paginated list.
func (e *Environment) Compact(ctx context.Context) (int64, error) {
	rev, err := e.etcdRevision(ctx)
	if err != nil {
		return 0, err
	}
	body := fmt.Sprintf(`{"revision":%d,"physical":true}`, rev)
	if err := e.etcdCall(ctx, "/v3/kv/compaction", body, nil); err != nil {
		return 0, fmt.Errorf("testenv: compacting etcd at revision %d: %w", rev, err)
	}
	if err := e.RestartAPIServer(ctx); err != nil {
		return 0, err
	}
	return rev, nil
}

// etcdRevision reads etcd's current revision through its JSON gateway, which
// keeps the etcd client library out of steady's dependencies.
func (e *Environment) etcdRevision(ctx context.Context) (int64, error) {
	var resp struct {
		Header struct {
			Revision json.Number `json:"revision"`
		} `json:"header"`
	}
	// A range over the single key "\x00" (base64 "AA==") touches no data but
	// returns the store's header.
	if err := e.etcdCall(ctx, "/v3/kv/range", `{"key":"AA=="}`, &resp); err != nil {
		return 0, fmt.Errorf("testenv: reading etcd revision: %w", err)
	}
	rev, err := strconv.ParseInt(resp.Header.Revision.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("testenv: etcd revision %q: %w", resp.Header.Revision, err)
	}
	return rev, nil
}

func (e *Environment) etcdCall(ctx context.Context, path, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.EtcdURL+path, bytes.NewBufferString(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", path, resp.Status, buf.String())
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(buf.Bytes(), out)
}
