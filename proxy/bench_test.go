package proxy_test

import (
	"fmt"
	"io"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/cputime"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/proxy"
	"github.com/ghostcheck/ghostcheck/wire"
)

// BenchmarkOverhead measures what the proxy costs, side by side in one
// run over loopback: heartbeats to ghostcheck's server (impl/server)
// directly, and through the proxy (recording every request, no faults),
// at 1 and 64 connections, each client with one member and one heartbeat
// in flight (as impl/server's BenchmarkLoad at depth 1). b.N heartbeats
// are shared among the clients.
//
// A third column, relay, is the floor of any proxy in user space: a relay
// that copies bytes both ways (io.Copy) and reads nothing. Every
// request and answer crosses two more sockets either way, and that costs
// the same syscalls whatever the proxy does with the bytes; the distance
// from relay to proxy is what parsing, recording and the answer queue
// cost.
//
// Reported: heartbeats/s, the p50 and p99 of a heartbeat's round trip,
// and cpu-µs/hb, the CPU time of the whole process (clients, proxy and
// server: user and system) per heartbeat. The clients and the server are
// the same in every column, so the difference is the proxy's own: its
// CPU per heartbeat, and what it adds to the round trip.
//
//	go test -run '^$' -bench Overhead -benchtime 100000x ./proxy
func BenchmarkOverhead(b *testing.B) {
	for _, conns := range []int{1, 64} {
		for _, via := range []string{"direct", "relay", "proxy"} {
			b.Run(fmt.Sprintf("conns=%d/%s", conns, via), func(b *testing.B) { overheadRun(b, conns, via) })
		}
	}
}

func overheadRun(b *testing.B, conns int, via string) {
	coord := impl.New(impl.Config{Topics: []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}},
		SessionTimeoutMs: 600000, HeartbeatIntervalMs: 100})
	addr, _ := servertest.Start(b, coord, server.Config{})
	switch via {
	case "proxy":
		p := startProxy(b, proxy.Config{Upstream: addr, Logf: func(string, ...any) {}})
		addr = p.Addr()
	case "relay":
		addr = startRelay(b, addr)
	}
	ws := make([]*hbWorker, conns)
	for i := range ws {
		ws[i] = newHBWorker(b, addr, i, b.N/conns+16)
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := cputime.Process()
	start := time.Now()
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if !w.heartbeat() {
					failed.Add(1)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cputime.Process()-cpu0
	b.StopTimer()
	var lat []time.Duration
	for _, w := range ws {
		lat = append(lat, w.lat...)
		w.w.Close()
	}
	reportLatency(b, lat, elapsed, cpu, failed.Load())
}

// hbWorker is one client connection with one member, heartbeating with a
// reused header and response (the client allocates nothing per request).
type hbWorker struct {
	w    *wire.Conn
	hm   *wire.Headers
	h    codec.RequestHeader
	req  codec.ConsumerGroupHeartbeatRequest
	resp codec.ConsumerGroupHeartbeatResponse
	lat  []time.Duration
}

func newHBWorker(b *testing.B, addr string, i, n int) *hbWorker {
	w, err := wire.Dial(addr, wire.Options{Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	hm, _ := wire.NewHeaders(codec.Str("bench"), codec.UUID{7, 7})
	wk := &hbWorker{w: w, hm: hm, lat: make([]time.Duration, 0, n)}
	wk.req = codec.ConsumerGroupHeartbeatRequest{GroupId: fmt.Sprintf("bench-g%d", i%4), MemberId: fmt.Sprintf("bench-member-%d", i),
		RebalanceTimeoutMs: 30000, SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	resp, err := w.RoundTrip(hm.Fill(&wk.h, codec.ConsumerGroupHeartbeat, 1), &wk.req)
	if err != nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.None {
		b.Fatalf("join: %v %v", resp, err)
	}
	wk.req.MemberEpoch = resp.(*codec.ConsumerGroupHeartbeatResponse).MemberEpoch
	wk.req.RebalanceTimeoutMs, wk.req.SubscribedTopicNames, wk.req.TopicPartitions = -1, nil, nil
	return wk
}

// heartbeat sends one heartbeat and waits for its answer.
func (wk *hbWorker) heartbeat() bool {
	t0 := time.Now()
	if err := wk.w.Send(wk.hm.Fill(&wk.h, codec.ConsumerGroupHeartbeat, 1), &wk.req); err != nil {
		return false
	}
	err := wk.w.ReceiveInto(&wk.resp)
	wk.lat = append(wk.lat, time.Since(t0))
	if err != nil || wk.resp.ErrorCode != codec.None {
		return false
	}
	wk.req.MemberEpoch = wk.resp.MemberEpoch
	return true
}

// reportLatency reports heartbeats/s, p50 and p99, and process CPU per
// heartbeat.
func reportLatency(b *testing.B, lat []time.Duration, elapsed, cpu time.Duration, failed int64) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(failed), "failed")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "hb/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	if cpu > 0 {
		b.ReportMetric(cpu.Seconds()*1e6/float64(len(lat)), "cpu-µs/hb")
	}
}

// startRelay relays every connection to upstream byte for byte, until the
// benchmark ends.
func startRelay(b *testing.B, upstream string) string {
	return nettest.Serve(b, func(nc net.Conn) {
		up, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		done := make(chan struct{})
		go func() { defer close(done); io.Copy(nc, up); nc.Close() }()
		io.Copy(up, nc)
		up.Close()
		<-done
	})
}
