package cluster

import "syscall"

// tcpUserTimeout is TCP_USER_TIMEOUT, the same number on every Linux
// architecture (the syscall package does not name it on all of them).
const tcpUserTimeout = 0x12

// controlSocket bounds how long data the API server never acknowledges
// keeps a connection open (TCP_USER_TIMEOUT): keepalive probes, which find
// an idle connection's dead peer, are not sent while data waits for an
// acknowledgement. An error setting it is ignored: the connection still
// works, only without the bound.
func controlSocket(_, _ string, rc syscall.RawConn) error {
	_ = rc.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpUserTimeout, int(userTimeout.Milliseconds()))
	})
	return nil
}
