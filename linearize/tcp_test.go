package linearize_test

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/linearize"
	"github.com/ghostcheck/ghostcheck/wire"
)

// apiVersionsOnly is a broker on 127.0.0.1 that answers ApiVersions
// (offering ConsumerGroupHeartbeat v0-v1) and closes the connection on
// anything else, as a broker does to a request it cannot parse.
func apiVersionsOnly(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
				for {
					frame, err := codec.ReadFrame(nc, nil, 1<<20)
					if err != nil {
						return
					}
					var h codec.RequestHeader
					if _, err := codec.ParseRequestHeader(frame, &h, codec.DecodeOptions{}); err != nil || h.RequestApiKey != codec.ApiVersions {
						return
					}
					r := codec.NewApiVersionsResponse()
					r.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: 4}, {ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: 1}}
					out, err := codec.AppendResponse(nil, h.CorrelationId, h.RequestApiVersion, r)
					if err != nil {
						return
					}
					if _, err := nc.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// The TCP target's errors keep the driver's meaning: a request the broker
// closed the connection on has an unknown outcome (ErrNoResponse, and
// wire's ErrConnClosed), one above the versions offered is refused
// locally, unsent (not ErrNoResponse).
func TestTCPTargetErrors(t *testing.T) {
	target, err := linearize.NewTCPTarget(apiVersionsOnly(t), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if got := target.Versions().Max(codec.ConsumerGroupHeartbeat); got != 1 {
		t.Fatalf("the negotiated versions should offer ConsumerGroupHeartbeat up to v1, say v%d", got)
	}
	hb := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", RebalanceTimeoutMs: -1}
	h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 2, CorrelationId: 1, ClientInstanceId: codec.SomeUUID(codec.UUID{1})}
	_, err = target.Handle(linearize.Conn{ID: 1}, h, hb)
	if !errors.Is(err, linearize.ErrVersionNotOffered) || errors.Is(err, linearize.ErrNoResponse) {
		t.Fatalf("a version above the broker's should be refused locally, unsent: %v", err)
	}
	h.RequestApiVersion = 1
	_, err = target.Handle(linearize.Conn{ID: 1}, h, hb)
	if !errors.Is(err, linearize.ErrNoResponse) || !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("a closed connection should be an unknown outcome: %v", err)
	}
}
