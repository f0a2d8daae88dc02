package operatortest

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// errWatchCut is what a watch cut by a perturbation reads, as a dropped
// connection would.
var errWatchCut = errors.New("operatortest: watch connection cut (an explored fault)")

// watchBody is a watch's answer that a perturbation can hold back — the
// events keep arriving, and wait, in order, until it lets them through —
// or cut. A goroutine reads the connection into chunks, so that an event
// that arrives while the watch is held stays held even if the informer
// was already waiting in Read.
type watchBody struct {
	src io.ReadCloser

	mu      sync.Mutex
	cond    sync.Cond
	chunks  [][]byte
	err     error // the connection's, after the chunks
	held    bool
	ended   bool // cut or closed
	endErr  error
	srcDone bool
}

func newWatchBody(src io.ReadCloser) *watchBody {
	b := &watchBody{src: src}
	b.cond.L = &b.mu
	go b.pump()
	return b
}

func (b *watchBody) pump() {
	buf := make([]byte, 32<<10)
	for {
		n, err := b.src.Read(buf)
		b.mu.Lock()
		if n > 0 {
			b.chunks = append(b.chunks, bytes.Clone(buf[:n])) // only what arrived, not a buffer per read
		}
		if err != nil {
			b.err, b.srcDone = err, true
		}
		b.cond.Broadcast()
		b.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (b *watchBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		switch {
		case b.ended:
			return 0, b.endErr
		case b.held:
		case len(b.chunks) > 0:
			n := copy(p, b.chunks[0])
			if b.chunks[0] = b.chunks[0][n:]; len(b.chunks[0]) == 0 {
				b.chunks = b.chunks[1:]
			}
			return n, nil
		case b.srcDone:
			return 0, b.err
		}
		b.cond.Wait()
	}
}

// Close ends the watch for its reader.
func (b *watchBody) Close() error {
	b.end(errors.New("operatortest: read on a closed watch"))
	return nil
}

// cut ends the watch as a broken connection: what it held is lost.
func (b *watchBody) cut() { b.end(errWatchCut) }

func (b *watchBody) end(err error) {
	b.mu.Lock()
	if !b.ended {
		b.ended, b.endErr, b.chunks = true, err, nil
	}
	b.cond.Broadcast()
	b.mu.Unlock()
	b.src.Close()
}

func (b *watchBody) setHeld(on bool) {
	b.mu.Lock()
	b.held = on
	b.cond.Broadcast()
	b.mu.Unlock()
}
