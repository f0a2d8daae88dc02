package testenv

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxy is a loopback TCP relay in front of kube-apiserver. Clients built from
// the Environment's rest.Config talk through it (TLS passes through
// untouched), which lets tests cut every open connection, watches included,
// or slow them down, without touching the server.
type proxy struct {
	listener net.Listener
	latency  atomic.Int64 // nanoseconds added before forwarding each chunk

	mu     sync.Mutex
	target string
	conns  map[net.Conn]chan struct{} // closed when the pair's relay ends
	wg     sync.WaitGroup
}

func newProxy(target string) (*proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{listener: l, target: target, conns: make(map[net.Conn]chan struct{})}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *proxy) addr() string { return p.listener.Addr().String() }

func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		client, err := p.listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.wg.Add(1)
		go p.relay(client)
	}
}

func (p *proxy) relay(client net.Conn) {
	defer p.wg.Done()
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	server, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		client.Close() // the client sees a reset, as with a server that is down
		return
	}
	ended := make(chan struct{})
	if !p.track(ended, client, server) {
		return
	}
	var done sync.WaitGroup
	done.Add(2)
	go func() { defer done.Done(); p.pipe(server, client) }()
	go func() { defer done.Done(); p.pipe(client, server) }()
	done.Wait()
	p.untrack(client, server)
	close(ended)
}

// pipe copies src to dst, and closes both when either side ends so the
// other direction ends too.
func (p *proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if d := time.Duration(p.latency.Load()); d > 0 {
				time.Sleep(d)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil { // EOF or a closed connection: either way this direction is over
			return
		}
	}
}

// track registers a live pair, whose relay closes ended when it is over;
// it refuses (and closes) when the proxy is closed.
func (p *proxy) track(ended chan struct{}, conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = ended
	}
	return true
}

func (p *proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

// setTarget points new connections at addr (after a restart on a new port).
func (p *proxy) setTarget(addr string) {
	p.mu.Lock()
	p.target = addr
	p.mu.Unlock()
}

// dropConnections closes every open connection; new ones are still accepted.
// It returns once their relays are over: a connection's socket is closed
// only when the read blocked on it returns, so until then its client may
// not have been told.
func (p *proxy) dropConnections() int {
	p.mu.Lock()
	ended := make(map[chan struct{}]bool)
	for c, e := range p.conns {
		c.Close()
		ended[e] = true
	}
	p.mu.Unlock()
	for e := range ended {
		<-e
	}
	return len(ended)
}

// close stops accepting, drops every connection and waits for the relays.
func (p *proxy) close() {
	p.listener.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
