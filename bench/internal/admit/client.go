package admit

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Client sends admission requests as kube-apiserver's webhook client
// does: POSTs of JSON over keep-alive HTTP/1.1 connections, each request
// on an idle connection or a new one, at most conns at once.
type Client struct {
	http     *http.Client
	url      string
	cases    []Case
	schedule []int
	dials    atomic.Int64
}

// NewClient returns a Client of the server at addr (host:port) whose
// certificate caPEM signed, sending request n as cases[schedule[n %
// len(schedule)]].
func NewClient(addr string, caPEM []byte, conns int, cases []Case, schedule []int) (*Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("admit: the CA certificate does not parse")
	}
	if len(cases) == 0 || len(schedule) == 0 {
		return nil, errors.New("admit: no cases to send")
	}
	c := &Client{url: "https://" + addr + Path + "?timeout=10s", cases: cases, schedule: schedule}
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c.dials.Add(1)
			return dialer.DialContext(ctx, network, addr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: 10 * time.Second,
		MaxConnsPerHost:     conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
	}
	c.http = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	return c, nil
}

// Dials returns how many connections the client has dialled, failed
// dials included, and sets the count to n.
func (c *Client) Dials(n int64) int64 { return c.dials.Swap(n) }

// Close closes the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Send sends request n of run and checks the answer (Case.Check); it
// returns how long the round trip took, from before the request was
// written until its answer was read.
func (c *Client) Send(ctx context.Context, run uint32, n uint64) (time.Duration, error) {
	cs := &c.cases[c.schedule[n%uint64(len(c.schedule))]]
	uid := UID(run, n)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(cs.Body(uid)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", cs.Name, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	req.Header.Set("User-Agent", "kube-apiserver-admission")
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", cs.Name, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return took, fmt.Errorf("%s: reading the answer: %w", cs.Name, err)
	}
	return took, cs.Check(uid, resp.StatusCode, body)
}
