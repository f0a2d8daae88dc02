//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package http1

import "syscall"

// canPeek says idle can look at a socket on this platform.
const canPeek = true

// idle reports whether the socket is open with nothing to read, as an idle
// HTTP/1.1 connection's should be: it looks without reading or blocking.
// A closed socket (end of stream or an error) or one with bytes waiting (a
// TLS close_notify alert, say) is not fit for another exchange.
func idle(rc syscall.RawConn) bool {
	var buf [1]byte
	open := false
	err := rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && open
}
