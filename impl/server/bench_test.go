package server_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/internal/cputime"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/wire"
)

// BenchmarkLoad compares ghostcheck's server with kfake over loopback, side
// by side in one run: each of 1, 8 or 64 clients has its own connection,
// joins its members, heartbeats, and leaves. b.N heartbeats are shared
// among the clients. With depth=1 a client has one member and one request
// in flight (the next is sent when the previous is answered); with
// depth=4 it has four members whose heartbeats it pipelines on its
// connection, written at once, as a client library multiplexing
// consumers over one broker connection does.
//
// A third broker, floor, is the fastest server possible: it reads each
// frame and answers it with a canned heartbeat response, doing no work at
// all. It measures what the loopback TCP stack, the Go runtime's network
// poller and these clients cost by themselves, so no broker can beat it;
// a broker's distance to it is the broker's own cost.
//
// Reported: heartbeats/s, the p50/p99 of a heartbeat's round trip (from
// the write that carried it to its response), and cpu-µs/hb, the CPU time
// of the whole process (clients and broker, user and system) per
// heartbeat. The clients are the same for every broker, so the difference
// between two brokers' cpu-µs/hb is the difference of their own CPU cost.
//
//	go test -run '^$' -bench Load -benchtime 200000x ./impl/server
//
// The churn workload (churn/...) has each client cycle through the whole
// membership life: join (epoch 0), eight heartbeats (acknowledging each
// new assignment in the next one, as a client does), leave (epoch -1),
// again and again under the member id it keeps for life (KIP-1082). Every
// join and leave moves the group epoch and the target assignment of the
// client's group (16 members at 64 clients), so this is where a broker's
// own work shows; it reports requests/s (req/s, cpu-µs/req) instead.
func BenchmarkLoad(b *testing.B) {
	for _, depth := range []int{1, 4} {
		for _, broker := range []string{"floor", "ghostcheck", "kfake"} {
			for _, clients := range []int{1, 8, 64} {
				b.Run(fmt.Sprintf("depth=%d/%s/clients=%d", depth, broker, clients), func(b *testing.B) { loadRun(b, broker, clients, depth, false) })
			}
		}
	}
	for _, broker := range []string{"floor", "ghostcheck", "kfake"} {
		for _, clients := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("churn/%s/clients=%d", broker, clients), func(b *testing.B) { loadRun(b, broker, clients, 1, true) })
		}
	}
}

func loadRun(b *testing.B, broker string, clients, depth int, churn bool) {
	var addr string
	switch broker {
	case "kfake":
		c := kfaketest.Start(b, kfake.NumBrokers(1), kfake.SeedTopics(6, "alpha"), kfake.SeedTopics(3, "beta"))
		addr = c.ListenAddrs()[0]
	case "floor":
		addr = serveFloor(b)
	default:
		srv, err := server.New(server.Config{Coordinator: longSessions()})
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			<-done
		}()
		addr = ln.Addr().String()
	}
	if churn {
		runChurn(b, addr, clients)
		return
	}
	runLoad(b, addr, clients, depth)
}

// serveFloor serves the floor broker until the benchmark run ends: every
// request frame is answered with the same successful
// ConsumerGroupHeartbeat v1 response (member epoch 1, no assignment) under
// the request's correlation id, written when no further input is
// buffered, as the real server does. It returns the floor's address.
func serveFloor(b *testing.B) string {
	canned, err := codec.AppendResponse(nil, 0, 1, &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m"), MemberEpoch: 1, HeartbeatIntervalMs: 5000})
	if err != nil {
		b.Fatal(err)
	}
	return nettest.Serve(b, func(nc net.Conn) {
		br := bufio.NewReaderSize(nc, 64<<10)
		var out []byte
		for {
			if br.Buffered() == 0 && len(out) > 0 {
				if _, err := nc.Write(out); err != nil {
					return
				}
				out = out[:0]
			}
			p, err := br.Peek(4)
			if err != nil {
				return
			}
			n := int(binary.BigEndian.Uint32(p))
			if n < 8 || n > 1<<20 {
				return
			}
			f, err := br.Peek(4 + n)
			if err != nil {
				return
			}
			at := len(out)
			out = append(out, canned...)
			copy(out[at+4:at+8], f[8:12]) // the correlation id
			br.Discard(4 + n)
		}
	})
}

func runLoad(b *testing.B, addr string, clients, depth int) {
	type worker struct {
		w      *wire.Conn
		member []string
		group  string
		epoch  []int32
		hm     *wire.Headers
		lat    []time.Duration
		h      codec.RequestHeader
		resp   codec.ConsumerGroupHeartbeatResponse
	}
	hdr := func(wk *worker) *codec.RequestHeader { return nextHeader(wk.hm, &wk.h) }
	ws := make([]*worker, clients)
	for i := range ws {
		w, err := wire.Dial(addr, wire.Options{Timeout: 10 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		wk := &worker{w: w, hm: benchHeaders(b), group: fmt.Sprintf("bench-g%d", i%4), lat: make([]time.Duration, 0, 2*b.N/clients+16)}
		for j := 0; j < depth; j++ {
			m := fmt.Sprintf("bench-member-%d-%d-%d", i, j, time.Now().UnixNano())
			r, err := w.RoundTrip(hdr(wk), &codec.ConsumerGroupHeartbeatRequest{GroupId: wk.group, MemberId: m, RebalanceTimeoutMs: 30000,
				SubscribedTopicNames: []string{"alpha", "beta"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}})
			if err != nil {
				b.Fatal(err)
			}
			hb := r.(*codec.ConsumerGroupHeartbeatResponse)
			if hb.ErrorCode != codec.None {
				b.Fatalf("join: %v", hb.ErrorCode)
			}
			wk.member = append(wk.member, m)
			wk.epoch = append(wk.epoch, hb.MemberEpoch)
		}
		ws[i] = wk
	}
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := cputime.Process()
	start := time.Now()
	for _, wk := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: wk.group, RebalanceTimeoutMs: -1}
			for next.Add(int64(depth)) <= int64(b.N)+int64(depth)-1 {
				for j := range wk.member {
					req.MemberId, req.MemberEpoch = wk.member[j], wk.epoch[j]
					if err := wk.w.Buffer(hdr(wk), req); err != nil {
						failed.Add(1)
						return
					}
				}
				t0 := time.Now()
				if err := wk.w.Flush(); err != nil {
					failed.Add(1)
					return
				}
				for j := range wk.member {
					err := wk.w.ReceiveInto(&wk.resp)
					wk.lat = append(wk.lat, time.Since(t0))
					if err != nil {
						failed.Add(1)
						return
					}
					if wk.resp.ErrorCode == codec.None {
						wk.epoch[j] = wk.resp.MemberEpoch
					} else {
						failed.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cputime.Process() - cpu0
	b.StopTimer()
	for _, wk := range ws {
		for _, m := range wk.member {
			wk.w.RoundTrip(hdr(wk), &codec.ConsumerGroupHeartbeatRequest{GroupId: wk.group, MemberId: m, MemberEpoch: -1, RebalanceTimeoutMs: -1})
		}
	}
	var lats [][]time.Duration
	for _, wk := range ws {
		lats = append(lats, wk.lat)
	}
	reportLoad(b, lats, elapsed, cpu, failed.Load(), "hb")
}

// benchHeaders is a load client's header maker, one per connection.
func benchHeaders(b *testing.B) *wire.Headers {
	hm, err := wire.NewHeaders(codec.Str("bench"), codec.UUID{7, 7})
	if err != nil {
		b.Fatal(err)
	}
	return hm
}

// nextHeader fills h, a client's one reused header, for its next
// ConsumerGroupHeartbeat v1 (the clients allocate nothing per request:
// their garbage would slow every broker and lengthen the latency tail with
// GC work). ClientId rides on the connection's first request only.
func nextHeader(hm *wire.Headers, h *codec.RequestHeader) *codec.RequestHeader {
	return hm.Fill(h, codec.ConsumerGroupHeartbeat, 1)
}

// reportLoad reports a load run: requests per second, the p50 and p99 of
// their round trips, and process CPU per request, with unit naming the
// request ("hb" for heartbeats, "req" for any).
func reportLoad(b *testing.B, lats [][]time.Duration, elapsed, cpu time.Duration, failed int64, unit string) {
	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	if len(all) == 0 {
		return
	}
	// Failed requests are counted in the rate too: show how many, so a
	// broker cannot look fast by answering errors.
	b.ReportMetric(float64(failed), "failed")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), unit+"/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
	if cpu > 0 {
		b.ReportMetric(cpu.Seconds()*1e6/float64(len(all)), "cpu-µs/"+unit)
	}
}

// runChurn is the churn workload (see BenchmarkLoad): b.N requests shared
// among the clients, each cycling join, eight heartbeats, leave.
func runChurn(b *testing.B, addr string, clients int) {
	type worker struct {
		w      *wire.Conn
		req    codec.ConsumerGroupHeartbeatRequest
		h      codec.RequestHeader
		resp   codec.ConsumerGroupHeartbeatResponse
		hm     *wire.Headers
		step   int
		epoch  int32
		owned  []codec.ConsumerGroupHeartbeatTopicPartitions
		report bool // the next heartbeat acknowledges a new assignment
		lat    []time.Duration
	}
	const cycle = 10 // join, 8 heartbeats, leave
	ws := make([]*worker, clients)
	for i := range ws {
		w, err := wire.Dial(addr, wire.Options{Timeout: 10 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		ws[i] = &worker{w: w, hm: benchHeaders(b), lat: make([]time.Duration, 0, 2*b.N/clients+16), req: codec.ConsumerGroupHeartbeatRequest{
			GroupId: fmt.Sprintf("churn-g%d", i%4), MemberId: fmt.Sprintf("churn-member-%d-%d", i, time.Now().UnixNano())}}
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := cputime.Process()
	start := time.Now()
	for _, wk := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				r := &wk.req
				r.SubscribedTopicNames, r.TopicPartitions, r.RebalanceTimeoutMs = nil, nil, -1
				switch {
				case wk.step == 0:
					r.MemberEpoch, r.RebalanceTimeoutMs = 0, 30000
					r.SubscribedTopicNames = []string{"alpha", "beta"}
					r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
					wk.owned = wk.owned[:0]
				case wk.step == cycle-1:
					r.MemberEpoch = -1
				default:
					r.MemberEpoch = wk.epoch
					if wk.report {
						r.TopicPartitions, wk.report = wk.owned, false
						if r.TopicPartitions == nil {
							r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
						}
					}
				}
				t0 := time.Now()
				if err := wk.w.Send(nextHeader(wk.hm, &wk.h), r); err != nil {
					failed.Add(1)
					return
				}
				err := wk.w.ReceiveInto(&wk.resp)
				wk.lat = append(wk.lat, time.Since(t0))
				if err != nil {
					failed.Add(1)
					return
				}
				if wk.resp.ErrorCode != codec.None {
					failed.Add(1)
					wk.step = 0 // rejoin
					continue
				}
				wk.epoch = wk.resp.MemberEpoch
				if a := wk.resp.Assignment; a != nil {
					// Keep a copy: the response is decoded into again.
					wk.owned = wk.owned[:0]
					for _, tp := range a.TopicPartitions {
						wk.owned = append(wk.owned, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: tp.TopicId, Partitions: append([]int32(nil), tp.Partitions...)})
					}
					wk.report = true
				}
				wk.step = (wk.step + 1) % cycle
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cputime.Process() - cpu0
	b.StopTimer()
	var lats [][]time.Duration
	for _, wk := range ws {
		if wk.step != 0 {
			wk.req.MemberEpoch = -1
			wk.w.RoundTrip(nextHeader(wk.hm, &wk.h), &wk.req)
		}
		lats = append(lats, wk.lat)
	}
	reportLoad(b, lats, elapsed, cpu, failed.Load(), "req")
}
