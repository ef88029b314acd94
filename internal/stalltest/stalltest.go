// Package stalltest gives the cloud backends' tests an endpoint that accepts
// connections on 127.0.0.1 and never answers.
package stalltest

import (
	"net"
	"sync"
	"testing"
)

// Listen starts a listener on 127.0.0.1 that accepts every connection and
// never writes a byte; it returns its host:port. It stops when the test ends.
func Listen(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("stalltest: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}
