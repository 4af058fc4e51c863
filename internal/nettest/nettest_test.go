package nettest_test

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/internal/nettest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Each connection gets its handler; when the test ends, a handler blocked
// on its connection is released and waited for, and the connection is
// closed under the client.
func TestServeEndsEveryHandler(t *testing.T) {
	var served, ended atomic.Int32
	var client net.Conn
	t.Run("serve", func(t *testing.T) {
		addr := nettest.Serve(t, func(nc net.Conn) {
			served.Add(1)
			defer ended.Add(1)
			io.Copy(nc, nc) // echo until the connection closes
		})
		var err error
		if client, err = net.Dial("tcp", addr); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		client.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(client, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("echo: %q %v", buf, err)
		}
	})
	defer client.Close()
	if served.Load() != 1 || ended.Load() != 1 {
		t.Fatalf("%d handlers started, %d ended by the end of the test: want 1 and 1", served.Load(), ended.Load())
	}
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := client.Read(make([]byte, 1)); err == nil {
		t.Fatalf("the connection is still open after the test ended (read %d bytes)", n)
	}
}
