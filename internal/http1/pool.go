package http1

import (
	"slices"
	"sync"
	"time"
)

// pool keeps idle connections per scheme and host, most recently used
// last, and closes each after the idle timeout.
type pool struct {
	opts Options
	mu   sync.Mutex
	idle map[hostKey][]*conn
}

func (p *pool) init(opts Options) {
	p.opts = opts
	p.idle = make(map[hostKey][]*conn)
}

// get takes the most recently used idle connection to key, or returns nil.
func (p *pool) get(key hostKey) *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.idle[key]
	if len(l) == 0 {
		return nil
	}
	c := l[len(l)-1]
	l[len(l)-1] = nil
	p.idle[key] = l[:len(l)-1]
	if c.timer != nil {
		c.timer.Stop()
	}
	return c
}

// put keeps c as idle, or closes it if the pool already has enough idle
// connections to its host.
func (p *pool) put(c *conn) {
	p.mu.Lock()
	l := p.idle[c.key]
	if len(l) >= p.opts.MaxIdlePerHost {
		p.mu.Unlock()
		c.close()
		return
	}
	p.idle[c.key] = append(l, c)
	if d := p.opts.IdleTimeout; d > 0 {
		if c.timer == nil {
			c.timer = time.AfterFunc(d, func() { p.expire(c) })
		} else {
			c.timer.Reset(d)
		}
	}
	p.mu.Unlock()
}

// expire closes c if it is still idle; a connection taken in the meantime
// is left alone.
func (p *pool) expire(c *conn) {
	p.mu.Lock()
	l := p.idle[c.key]
	i := slices.Index(l, c)
	if i < 0 {
		p.mu.Unlock()
		return
	}
	p.idle[c.key] = slices.Delete(l, i, i+1)
	p.mu.Unlock()
	c.close()
}

// closeIdle closes every idle connection.
func (p *pool) closeIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = make(map[hostKey][]*conn)
	p.mu.Unlock()
	for _, l := range idle {
		for _, c := range l {
			if c.timer != nil {
				c.timer.Stop()
			}
			c.close()
		}
	}
}
