package http1

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// errClosed is what a read of a closed body returns, as net/http's does.
var errClosed = errors.New("http: read on closed response body")

// body is a response's body as read from its connection. Read to its end,
// or closed once all of it was read, it returns the connection to the
// pool; closed early, or failed, it closes the connection. Close may be
// called while a Read is blocked, to abort it.
type body struct {
	rc       io.ReadCloser // http.ReadResponse's body
	c        *conn
	t        *Transport
	ctx      context.Context
	stop     func() bool // stops the context's watch; false if it fired
	reusable bool        // the connection may carry another exchange
	left     int64       // bytes the Content-Length says are left, or -1

	mu   sync.Mutex
	done bool  // the connection was released or closed
	err  error // what reads return once done: io.EOF, a read's error, or errClosed
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	done, doneErr := b.done, b.err
	b.mu.Unlock()
	if done {
		return 0, doneErr
	}
	n, err := b.rc.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done { // closed while reading
		return n, b.err
	}
	if b.left >= 0 {
		b.left -= int64(n)
	}
	switch {
	case err == io.EOF:
		b.finish(true)
	case err != nil:
		b.finish(false)
		if b.ctx.Err() != nil {
			err = context.Cause(b.ctx)
		}
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

// Close releases the connection: to the pool if the body was read to its
// end (by EOF, or by its Content-Length), else by closing it.
func (b *body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		b.finish(b.left == 0)
	}
	b.err = errClosed // reads after Close fail, as net/http's do
	return nil
}

// finish releases the connection; b.mu is held.
func (b *body) finish(complete bool) {
	b.done = true
	stopped := b.stop()
	b.c.release(b.t, complete && stopped && b.reusable)
}

// gzipBody decompresses a gzip-encoded body, starting at the first Read,
// as net/http does for a response it asked to be compressed. Like body,
// it may be closed while a Read is blocked.
type gzipBody struct {
	body   *body
	closed atomic.Bool
	zr     *gzip.Reader // the reader's alone
	err    error        // gzip.NewReader's, the reader's alone
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.closed.Load() {
		return 0, errClosed
	}
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, err := gzip.NewReader(g.body)
		if err != nil {
			g.err = err
			return 0, err
		}
		g.zr = zr
	}
	return g.zr.Read(p)
}

func (g *gzipBody) Close() error {
	g.closed.Store(true)
	return g.body.Close()
}
