//go:build !linux

package cluster

import "syscall"

// controlSocket sets nothing outside Linux, where TCP_USER_TIMEOUT is not
// available everywhere; keepalive probes still find idle dead connections.
func controlSocket(_, _ string, _ syscall.RawConn) error { return nil }
