// Package nettest serves TCP connections for tests: fake brokers, relays
// and floors that need an accept loop and nothing else. One loop, so that
// every such server ends the same way when its test does: the listener
// closed, every connection closed, every handler returned (goleak finds
// none left behind).
package nettest

import (
	"net"
	"sync"
	"testing"
)

// Serve listens on 127.0.0.1 (a port the system picks) and runs handle in
// a goroutine of its own for each connection, closing the connection when
// handle returns. When the test (or benchmark run) ends it closes the
// listener and every connection still open, which ends a handler blocked
// on it, and waits for every handler. It returns the address.
func Serve(tb testing.TB, handle func(nc net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		conns  = map[net.Conn]struct{}{}
		closed bool
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closed {
				mu.Unlock()
				nc.Close()
				return
			}
			conns[nc] = struct{}{}
			wg.Add(1)
			mu.Unlock()
			go func() {
				defer wg.Done()
				defer func() {
					mu.Lock()
					delete(conns, nc)
					mu.Unlock()
					nc.Close()
				}()
				handle(nc)
			}()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		closed = true
		for nc := range conns {
			nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}
