// Package servertest starts ghostcheck's server for tests: on 127.0.0.1,
// an ephemeral port, shut down (draining) when the test ends; and dials
// it with wire, the client every tool uses.
package servertest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Start serves coord with cfg (cfg.Coordinator is set to coord) until tb
// ends, and returns the listening address and the server.
func Start(tb testing.TB, coord *impl.Coordinator, cfg server.Config) (string, *server.Server) {
	tb.Helper()
	cfg.Coordinator = coord
	srv, err := server.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	})
	return ln.Addr().String(), srv
}

// Dial connects a test client to addr (5 s timeouts), closed when tb ends.
func Dial(tb testing.TB, addr string) *wire.Conn {
	tb.Helper()
	w, err := wire.Dial(addr, wire.Options{Timeout: 5 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w
}
