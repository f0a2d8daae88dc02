package webhook_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/steadyctl/steady/serving"
	"github.com/steadyctl/steady/webhook"
)

// A server with one handler. An operator's server comes from its manager
// (manager.WithWebhookServer), and its handlers from the builder; the
// certificate here is self-signed for the example.
func Example() {
	cert, err := serving.SelfSignedCertificate("127.0.0.1")
	if err != nil {
		log.Fatal(err)
	}
	s, err := webhook.NewServer(webhook.WithAddr("127.0.0.1:0"), webhook.WithCertificate(cert.GetCertificate))
	if err != nil {
		log.Fatal(err)
	}
	err = s.Handle("/hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "hello, %s", body)
	}))
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Start(ctx) }()
	for s.Ready() != nil {
		time.Sleep(time.Millisecond)
	}

	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	resp, err := (&http.Client{Transport: tr}).Post("https://"+s.Addr()+"/hello", "text/plain", strings.NewReader("API server"))
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tr.CloseIdleConnections()
	fmt.Println(resp.Status, string(body))
	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// 200 OK hello, API server
	// stopped: <nil>
}
