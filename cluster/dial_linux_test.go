package cluster

import (
	"context"
	"net"
	"syscall"
	"testing"

	"k8s.io/client-go/rest"
)

// The keepalive dialer's connections carry the keepalive probes and the
// TCP_USER_TIMEOUT it promises.
func TestKeepAliveDialerSetsSocketOptions(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1)) // until the client closes
		}
	}()
	cfg := transportConfig(&rest.Config{}, false, true)
	conn, err := cfg.Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ opt, level, value int }{
		"SO_KEEPALIVE":     {syscall.SO_KEEPALIVE, syscall.SOL_SOCKET, 1},
		"TCP_KEEPIDLE":     {syscall.TCP_KEEPIDLE, syscall.IPPROTO_TCP, int(keepAliveIdle.Seconds())},
		"TCP_KEEPINTVL":    {syscall.TCP_KEEPINTVL, syscall.IPPROTO_TCP, int(keepAliveInterval.Seconds())},
		"TCP_KEEPCNT":      {syscall.TCP_KEEPCNT, syscall.IPPROTO_TCP, keepAliveCount},
		"TCP_USER_TIMEOUT": {tcpUserTimeout, syscall.IPPROTO_TCP, int(userTimeout.Milliseconds())},
	}
	for name, w := range want {
		var got int
		var gerr error
		if err := raw.Control(func(fd uintptr) { got, gerr = syscall.GetsockoptInt(int(fd), w.level, w.opt) }); err != nil {
			t.Fatal(err)
		}
		if gerr != nil {
			t.Fatalf("%s: %v", name, gerr)
		}
		if got != w.value {
			t.Errorf("%s = %d, want %d", name, got, w.value)
		}
	}
}
