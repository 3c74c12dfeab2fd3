package forge

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// peekedConn is a connection whose first bytes were peeked.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// chanListener hands out the connections sent to it.
type chanListener struct {
	net.Listener
	conns chan net.Conn
}

func (l chanListener) Accept() (net.Conn, error) {
	c, ok := <-l.conns
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}

// TestRedirectToPlainHTTPKeepsTheToken: a TLS forge on 127.0.0.1 redirects
// to http:// on the same host and port (the port answers plain HTTP too, as
// a forge behind a proxy that serves both would). Review 3, finding 01: the
// token went in clear, because the redirect check compared the host only
// and Go keeps Authorization on a same-host redirect.
func TestRedirectToPlainHTTPKeepsTheToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsConns, plainConns := make(chan net.Conn, 8), make(chan net.Conn, 8)
	go func() { // a TLS handshake starts with 0x16; anything else is plain HTTP
		for {
			c, err := ln.Accept()
			if err != nil {
				close(tlsConns)
				close(plainConns)
				return
			}
			go func() {
				r := bufio.NewReader(c)
				b, err := r.Peek(1)
				if err != nil {
					c.Close()
					return
				}
				if b[0] == 0x16 {
					tlsConns <- peekedConn{c, r}
				} else {
					plainConns <- peekedConn{c, r}
				}
			}()
		}
	}()
	var mu sync.Mutex
	var inClear []string
	plain := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inClear = append(inClear, r.Header.Get("Authorization"))
		mu.Unlock()
		io.WriteString(w, `{"version":"1.26.0"}`)
	})}
	go plain.Serve(chanListener{ln, plainConns})
	defer plain.Close()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+ln.Addr().String()+r.URL.Path, http.StatusFound)
	}))
	srv.Listener = chanListener{ln, tlsConns}
	srv.StartTLS()
	defer srv.Close()
	testRootCAs = srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	defer func() { testRootCAs = nil }()

	_, err = New(context.Background(), srv.URL, secretToken)
	mu.Lock()
	defer mu.Unlock()
	for _, a := range inClear {
		if strings.Contains(a, secretToken) {
			t.Fatalf("the token went over plain http: %q", a)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "another scheme, host or port") || strings.Contains(err.Error(), secretToken) {
		t.Fatalf("New followed the redirect to http, or said so unclearly: %v", err)
	}
}

// TestRedirectToAnotherPortIsRefused: the same host on another port is
// another origin.
func TestRedirectToAnotherPortIsRefused(t *testing.T) {
	other := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("the token followed a redirect to another port")
		}
	})
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	})
	cl, err := New(context.Background(), srv.URL, secretToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.PullDiff(context.Background(), "acme", "widgets", 1); err == nil {
		t.Fatal("redirect to another port followed")
	}
}

func TestPlainHTTPForgeWithTokenNeedsLoopbackOrInsecure(t *testing.T) {
	cases := []struct {
		url             string
		token, insecure bool
		clear, refused  bool
	}{
		{"https://codeberg.org", true, false, false, false},
		{"http://forge.example", false, false, false, false},
		{"http://forge.example", true, false, false, true},
		{"http://forge.example", true, true, true, false},
		{"http://127.0.0.1:3000", true, false, true, false},
		{"http://[::1]:3000", true, false, true, false},
		{"http://localhost", true, false, true, false},
		{"http://10.0.0.1", true, false, false, true},
	}
	for _, c := range cases {
		clear, err := CheckTransport(c.url, c.token, c.insecure)
		if clear != c.clear || (err != nil) != c.refused {
			t.Errorf("%s token=%v insecure=%v: clear=%v err=%v", c.url, c.token, c.insecure, clear, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--insecure-forge") {
			t.Errorf("%s: the refusal does not say the way out: %v", c.url, err)
		}
	}
}
