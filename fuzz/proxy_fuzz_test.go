package fuzz

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// scriptedBroker answers every connection with the bytes script holds
// when the connection arrives, once the first whole frame has come in
// (whatever it holds), then reads until the peer closes.
type scriptedBroker struct {
	ln     net.Listener
	script atomic.Pointer[[]byte]
	wg     sync.WaitGroup
}

func startScriptedBroker(f *testing.F) *scriptedBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	b := &scriptedBroker{ln: ln}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			script := *b.script.Load()
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer nc.Close()
				nc.SetDeadline(time.Now().Add(time.Second))
				br := bufio.NewReader(nc)
				var size [4]byte
				if _, err := io.ReadFull(br, size[:]); err != nil {
					return
				}
				n := int64(binary.BigEndian.Uint32(size[:]))
				if _, err := io.CopyN(io.Discard, br, min(n, 1<<16)); err != nil {
					return
				}
				nc.Write(script)
				io.Copy(io.Discard, br)
			}()
		}
	}()
	f.Cleanup(func() { ln.Close(); b.wg.Wait() })
	return b
}

// FuzzProxy drives the proxy from both sides at once: the input's first
// byte says where to cut the rest into what a client sends and what the
// broker behind the proxy answers (each anything at all). Every fault kind
// is on, so group requests that parse take every path. Invariant: the
// proxy never panics (a panic in any of its goroutines ends the fuzzing
// process) and always ends the client's connection, within its frame
// timeout, once the client stops sending.
func FuzzProxy(f *testing.F) {
	b := startScriptedBroker(f)
	rates, _ := proxy.ParseRates("uniform=70")
	p, err := proxy.Start(proxy.Config{Listen: "127.0.0.1:0", Upstream: b.ln.Addr().String(), Faults: proxy.NewRandomFaults(1, rates, time.Millisecond),
		MaxFrameSize: 1 << 16, FrameTimeout: 100 * time.Millisecond, IdleTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { p.Close() })
	for _, seed := range proxySeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cut := 1 + int(data[0])*(len(data)-1)/256
		client, broker := data[1:cut], append([]byte(nil), data[cut:]...)
		b.script.Store(&broker)
		nc, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.Write(client)
		nc.(*net.TCPConn).CloseWrite()
		nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := io.Copy(io.Discard, nc); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the proxy kept the connection of a client that stopped sending")
			}
		}
	})
}

// proxySeeds are inputs a well-behaved pair would exchange: a heartbeat
// and its answer, ApiVersions, Metadata with a broker to route.
func proxySeeds() [][]byte {
	pair := func(h codec.RequestHeader, req codec.Message, resp codec.Message) []byte {
		a, _ := codec.AppendRequest(nil, &h, req)
		b, _ := codec.AppendResponse(nil, h.CorrelationId, h.RequestApiVersion, resp)
		cut := byte(len(a) * 256 / (len(a) + len(b)))
		return append(append([]byte{cut + 1}, a...), b...)
	}
	md := codec.NewMetadataResponse()
	md.Brokers = []codec.MetadataResponseBroker{{NodeId: 1, Host: "127.0.0.1", Port: 1}}
	return [][]byte{
		pair(codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: 1, ClientId: codec.Str("c"), ClientInstanceId: codec.SomeUUID(codec.UUID{1})},
			&codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: 1, RebalanceTimeoutMs: -1},
			&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m"), MemberEpoch: 2, HeartbeatIntervalMs: 100}),
		pair(codec.RequestHeader{RequestApiKey: codec.ApiVersions, RequestApiVersion: 3, CorrelationId: 1, ClientId: codec.Str("c")},
			&codec.ApiVersionsRequest{ClientSoftwareName: "x", ClientSoftwareVersion: "1"},
			&codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.Metadata, MaxVersion: 20}}}),
		pair(codec.RequestHeader{RequestApiKey: codec.Metadata, RequestApiVersion: 12, CorrelationId: 1, ClientId: codec.Str("c")},
			codec.NewMetadataRequest(), md),
		pair(codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 5, CorrelationId: 1, ClientId: codec.Str("c")},
			&codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: "m", GroupInstanceId: codec.Str("i")}}},
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{{MemberId: "m", GroupInstanceId: codec.Str("i")}}}),
		{0x80, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 4, 0, 0, 0, 9},
	}
}
