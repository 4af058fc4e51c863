package proxy_test

import (
	"bufio"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/proxy"
	"github.com/ghostcheck/ghostcheck/wire"
)

func dialNegotiated(t *testing.T, addr string) (*wire.Conn, *wire.Headers, wire.Versions) {
	t.Helper()
	w, err := wire.Dial(addr, wire.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	hm, _ := wire.NewHeaders(codec.Str("router"), codec.UUID{3})
	n, err := w.Negotiate(hm, wire.NegotiateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w, hm, n.Versions
}

// Every broker a Metadata or FindCoordinator answer names, at every
// version a client may ask, is one of the proxy's listeners, one per
// upstream broker, and each forwards to its broker.
func TestRoutingToEveryBroker(t *testing.T) {
	cluster := kfaketest.Start(t, kfake.NumBrokers(3), kfake.SeedTopics(6, "alpha"))
	p := startProxy(t, proxy.Config{Upstream: cluster.ListenAddrs()[0]})
	w, hm, _ := dialNegotiated(t, p.Addr())
	proxied := map[string]bool{}
	for v := int16(0); v <= 13; v++ {
		req := codec.NewMetadataRequest()
		resp, err := w.RoundTrip(hm.Next(codec.Metadata, v), req)
		if err != nil {
			t.Fatalf("Metadata v%d: %v", v, err)
		}
		m := resp.(*codec.MetadataResponse)
		if len(m.Brokers) != 3 {
			t.Fatalf("Metadata v%d: %d brokers", v, len(m.Brokers))
		}
		for _, b := range m.Brokers {
			proxied[net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))] = true
		}
	}
	for v := int16(0); v <= 6; v++ {
		req := &codec.FindCoordinatorRequest{CoordinatorKey: "g"}
		if v >= 4 {
			req = &codec.FindCoordinatorRequest{CoordinatorKeys: []string{"g", "h"}}
		}
		resp, err := w.RoundTrip(hm.Next(codec.FindCoordinator, v), req)
		if err != nil {
			t.Fatalf("FindCoordinator v%d: %v", v, err)
		}
		fc := resp.(*codec.FindCoordinatorResponse)
		addrs := []string{net.JoinHostPort(fc.Host, strconv.Itoa(int(fc.Port)))}
		if v >= 4 {
			addrs = nil
			for _, c := range fc.Coordinators {
				addrs = append(addrs, net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port))))
			}
		}
		for _, a := range addrs {
			if !proxied[a] {
				t.Errorf("FindCoordinator v%d names %s, not one of the proxy's %v", v, a, proxied)
			}
		}
	}
	ls := p.Listeners()
	if len(ls) != 3 || len(proxied) != 3 {
		t.Fatalf("listeners %v, addresses named %v", ls, proxied)
	}
	upstream := map[string]bool{}
	for _, a := range cluster.ListenAddrs() {
		upstream[a] = true
	}
	for _, l := range ls {
		if !proxied[l.Addr] || !upstream[l.Upstream] {
			t.Errorf("listener %+v is not one named, or not for a broker of the cluster", l)
		}
		dialNegotiated(t, l.Addr) // each forwards
	}
	p.Close()
	brokers := map[string]bool{}
	for _, r := range p.Recording() {
		brokers[r.Broker] = true
	}
	if len(brokers) != 3 {
		t.Errorf("recorded traffic to %d brokers, want 3", len(brokers))
	}
}

// Past MaxBrokers an answer naming a new broker cannot be rewritten: the
// connection closes rather than tell the client a broker's own address.
func TestMaxBrokers(t *testing.T) {
	cluster := kfaketest.Start(t, kfake.NumBrokers(3), kfake.SeedTopics(6, "alpha"))
	p := startProxy(t, proxy.Config{Upstream: cluster.ListenAddrs()[0], MaxBrokers: 2, Logf: func(string, ...any) {}})
	w, hm, _ := dialNegotiated(t, p.Addr())
	if _, err := w.RoundTrip(hm.Next(codec.Metadata, 12), codec.NewMetadataRequest()); !errors.Is(err, wire.ErrNoResponse) {
		t.Fatalf("Metadata past MaxBrokers: %v", err)
	}
}

// A broker offering Metadata or FindCoordinator above what the proxy can
// rewrite is shown to the client capped at codec's versions, at every
// ApiVersions version; the other ranges are untouched.
func TestApiVersionsCapped(t *testing.T) {
	keys := []codec.ApiVersionsKey{{ApiKey: codec.Metadata, MaxVersion: 20}, {ApiKey: codec.FindCoordinator, MaxVersion: 9},
		{ApiKey: codec.ApiVersions, MaxVersion: 4}, {ApiKey: codec.LeaveGroup, MaxVersion: 5}}
	up := fakeBroker(t, func(nc net.Conn) {
		br := bufio.NewReader(nc)
		for {
			corr, _, frame := readRequest(br)
			if corr < 0 {
				return
			}
			v := int16(frame[2])<<8 | int16(frame[3])
			b, err := codec.AppendResponse(nil, corr, v, &codec.ApiVersionsResponse{ApiKeys: keys})
			if err != nil {
				return
			}
			nc.Write(b)
		}
	})
	p := startProxy(t, proxy.Config{Upstream: up})
	for v := int16(0); v <= 4; v++ {
		w, err := wire.Dial(p.Addr(), wire.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		hm, _ := wire.NewHeaders(codec.Str("c"), codec.UUID{1})
		n, err := w.Negotiate(hm, wire.NegotiateOptions{MaxVersion: v})
		w.Close()
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if n.Versions.Max(codec.Metadata) != 13 || n.Versions.Max(codec.FindCoordinator) != 6 || n.Versions.Max(codec.LeaveGroup) != 5 {
			t.Errorf("ApiVersions v%d: the client sees %v", v, n.Versions)
		}
	}
}

// Addr may be called while answers naming new brokers make listeners
// (it read the list of listeners unlocked: go test -race found it).
func TestAddrWhileRouting(t *testing.T) {
	up := fakeBroker(t, func(nc net.Conn) {
		br := bufio.NewReader(nc)
		for {
			corr, _, frame := readRequest(br)
			if corr < 0 {
				return
			}
			v := int16(frame[2])<<8 | int16(frame[3])
			m := codec.NewMetadataResponse()
			for i := int32(0); i < 8; i++ {
				// Brokers nobody dials: each gets a listener.
				m.Brokers = append(m.Brokers, codec.MetadataResponseBroker{NodeId: i, Host: "127.0.0.1", Port: 1 + corr*8 + i})
			}
			b, err := codec.AppendResponse(nil, corr, v, m)
			if err != nil {
				return
			}
			nc.Write(b)
		}
	})
	p := startProxy(t, proxy.Config{Upstream: up})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			if p.Addr() == "" {
				t.Error("no address")
				return
			}
		}
	}()
	w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	hm, _ := wire.NewHeaders(codec.Str("c"), codec.UUID{1})
	for i := 0; i < 6; i++ {
		if _, err := w.RoundTrip(hm.Next(codec.Metadata, 12), codec.NewMetadataRequest()); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if n := len(p.Listeners()); n != 1+6*8 {
		t.Errorf("%d listeners, want the bootstrap and 48 named", n)
	}
}
