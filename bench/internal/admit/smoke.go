package admit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// Smoke starts an implementation's server with a new certificate on a
// free loopback port, waits until it answers, sends it every Case once,
// checking each answer, and stops it: the children's tests, which keep
// their wiring working (no API server, the validator at Path) without
// building them.
func Smoke(ctx context.Context, start StartFunc) (err error) {
	dir, err := os.MkdirTemp("", "admit-smoke-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	caPEM, err := WriteCerts(dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cases, err := Cases()
	if err != nil {
		return err
	}
	schedule := make([]int, len(cases))
	for i := range schedule {
		schedule[i] = i
	}
	cl, err := NewClient(fmt.Sprintf("127.0.0.1:%d", port), caPEM, 2, cases, schedule)
	if err != nil {
		return err
	}
	defer cl.Close()

	sctx, stop := context.WithCancel(ctx)
	done, err := start(sctx, Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	if err != nil {
		stop()
		return err
	}
	defer func() {
		stop()
		select {
		case serr := <-done:
			if serr != nil && !errors.Is(serr, context.Canceled) {
				err = errors.Join(err, fmt.Errorf("stopping: %w", serr))
			}
		case <-time.After(30 * time.Second):
			err = errors.Join(err, errors.New("the server did not stop within 30 s"))
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := cl.Send(ctx, 1, 0)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not answering after 30 s: %w", err)
		}
		select {
		case serr := <-done:
			return fmt.Errorf("the server stopped: %v", serr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	for n := range uint64(len(cases)) {
		if _, err := cl.Send(ctx, 1, n); err != nil {
			return err
		}
	}
	return nil
}
