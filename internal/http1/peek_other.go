//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package http1

import "syscall"

// canPeek says idle cannot look at a socket on this platform, so a
// Transport hands every request to its base.
const canPeek = false

func idle(syscall.RawConn) bool { return false }
