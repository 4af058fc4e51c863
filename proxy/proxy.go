package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Defaults of Config's limits.
const (
	DefaultMaxConns     = 1024
	DefaultMaxBrokers   = 64
	DefaultMaxFrameSize = 100 << 20 // Kafka's socket.request.max.bytes
	DefaultMaxRecords   = 1 << 20
	// DefaultMaxRecordedBytes bounds what the recording holds: a record
	// costs about 200 bytes plus its ClientId and the bodies it keeps.
	DefaultMaxRecordedBytes = 256 << 20
	DefaultDialTimeout      = 10 * time.Second
	DefaultIdleTimeout      = 10 * time.Minute // Kafka's connections.max.idle.ms
	DefaultFrameTimeout     = 30 * time.Second
	DefaultWriteTimeout     = 30 * time.Second
)

// Config is what a proxy listens on, where it forwards, what it does to
// group requests and how far it lets peers go.
type Config struct {
	// Listen is the client-facing address of the bootstrap listener
	// (host:port; port 0 picks one). The listeners of the other brokers
	// are made on the same host, on ports the system picks.
	Listen string
	// Upstream is the bootstrap broker, host:port.
	Upstream string
	// Advertise is the host written into rewritten Metadata and
	// FindCoordinator answers ("": Listen's host, 127.0.0.1 when that is
	// unspecified).
	Advertise string
	// Faults decides the fault of each group request (nil: none).
	Faults Injector
	// MaxConns caps open client connections (over it a new one is closed
	// at once); MaxBrokers the upstream brokers (listeners); MaxFrameSize
	// a frame either way (a larger size closes the connection before
	// anything is allocated); MaxRecords the requests recorded and
	// MaxRecordedBytes what their records hold (headers, ClientIds, the
	// bodies and answers kept): past either, requests are forwarded and
	// counted, not recorded, and the recording judged is the part before.
	// 0: the defaults.
	MaxConns, MaxBrokers, MaxFrameSize, MaxRecords, MaxRecordedBytes int
	// DialTimeout bounds a dial of a broker; IdleTimeout a client
	// connection with nothing to say (which also bounds a wait for a
	// broker that never answers); FrameTimeout the rest of a frame once
	// its size arrived; WriteTimeout a write either way. 0: the defaults.
	DialTimeout, IdleTimeout, FrameTimeout, WriteTimeout time.Duration
	// Logf, when set, is told why connections end early.
	Logf func(format string, args ...any)
	// DialUpstream, when set, opens the connection to a broker in place
	// of a plain TCP dial: TLS originated here (wire.Dialer.DialNet), the
	// client speaking plaintext to the proxy. A client's own SASL
	// exchange passes through either way; the proxy never authenticates
	// for it (its exchange would be the connection's first request, and
	// the broker would remember the proxy's ClientId, not the client's).
	// DialTimeout bounds it still.
	DialUpstream func(ctx context.Context, addr string) (net.Conn, error)
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxConns, DefaultMaxConns)
	def(&c.MaxBrokers, DefaultMaxBrokers)
	def(&c.MaxFrameSize, DefaultMaxFrameSize)
	def(&c.MaxRecords, DefaultMaxRecords)
	def(&c.MaxRecordedBytes, DefaultMaxRecordedBytes)
	defD(&c.DialTimeout, DefaultDialTimeout)
	defD(&c.IdleTimeout, DefaultIdleTimeout)
	defD(&c.FrameTimeout, DefaultFrameTimeout)
	defD(&c.WriteTimeout, DefaultWriteTimeout)
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}

// Stats count what a proxy did.
type Stats struct {
	Accepted, Refused uint64 // client connections, and those over MaxConns
	Requests          uint64 // requests forwarded or answered
	Unrecorded        uint64 // requests past MaxRecords or MaxRecordedBytes
	RecordedBytes     int64  // what the records hold, as MaxRecordedBytes counts it
	Faults            uint64 // faults applied
	ProtocolErrors    uint64 // connections closed for a bad frame either way
	Brokers           int    // upstream brokers (listeners)
}

// Listener is one of the proxy's listeners and the broker it forwards to.
type Listener struct {
	Addr     string // the proxy's address, as clients reach it
	Upstream string // the broker's
}

// Proxy is a running recording, fault-injecting Kafka proxy.
type Proxy struct {
	cfg        Config
	listenHost string
	advertise  string
	start      time.Time
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup

	// boot is the bootstrap listener, set by Start before anything runs
	// and never changed: Addr reads it without the lock.
	boot *listener

	mu        sync.Mutex
	closed    bool
	listeners map[string]*listener // by upstream address
	order     []*listener
	conns     map[*conn]struct{}
	ended     []connRecord

	nextConn, seq, groupReqs     atomic.Uint64
	open                         atomic.Int64
	accepted, refused, requests  atomic.Uint64
	recorded, unrecorded, faults atomic.Uint64
	protocolErrors               atomic.Uint64
	// recordedBytes counts what the records hold; full is set once
	// MaxRecordedBytes is passed, and nothing is recorded from then on.
	recordedBytes atomic.Int64
	full          atomic.Bool
}

// listener is one listening socket and the broker behind it.
type listener struct {
	ln       net.Listener
	upstream string
	host     string
	port     int32
}

// Start listens on cfg.Listen for cfg.Upstream and serves until Close.
func Start(cfg Config) (*Proxy, error) {
	cfg = cfg.withDefaults()
	if _, _, err := net.SplitHostPort(cfg.Upstream); err != nil {
		return nil, fmt.Errorf("proxy: upstream %q: %w", cfg.Upstream, err)
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("proxy: listen %q: %w", cfg.Listen, err)
	}
	adv := cfg.Advertise
	if adv == "" {
		adv = host
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			adv = "127.0.0.1"
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{cfg: cfg, listenHost: host, advertise: adv, start: time.Now(), ctx: ctx, cancel: cancel,
		listeners: map[string]*listener{}, conns: map[*conn]struct{}{}}
	p.mu.Lock()
	boot, err := p.listen(cfg.Listen, cfg.Upstream)
	p.boot = boot
	p.mu.Unlock()
	if err != nil {
		cancel()
		return nil, err
	}
	return p, nil
}

// listen opens a listener at addr for the broker upstream and serves it.
// The caller holds p.mu.
func (p *Proxy) listen(addr, upstream string) (*listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("proxy: listening for %s: %w", upstream, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	n, _ := strconv.Atoi(port)
	l := &listener{ln: ln, upstream: upstream, host: p.advertise, port: int32(n)}
	p.listeners[upstream] = l
	p.order = append(p.order, l)
	p.wg.Add(1)
	go p.accept(l)
	return l, nil
}

// route implements router: the proxy's address for the broker at host and
// port, listening for it if it is new (up to MaxBrokers).
func (p *Proxy) route(host string, port int32) (string, int32, error) {
	up := joinHostPort(host, port)
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.listeners[up]; ok {
		return l.host, l.port, nil
	}
	if p.closed {
		return "", 0, errors.New("proxy: closed")
	}
	if len(p.listeners) >= p.cfg.MaxBrokers {
		return "", 0, fmt.Errorf("proxy: more than %d brokers; not listening for %s", p.cfg.MaxBrokers, up)
	}
	l, err := p.listen(net.JoinHostPort(p.listenHost, "0"), up)
	if err != nil {
		return "", 0, err
	}
	return l.host, l.port, nil
}

// accept serves one listener until it is closed.
func (p *Proxy) accept(l *listener) {
	defer p.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if p.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors, say: wait, but not forever.
			select {
			case <-time.After(backoff):
			case <-p.ctx.Done():
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		if p.open.Add(1) > int64(p.cfg.MaxConns) {
			p.open.Add(-1)
			p.refused.Add(1)
			nc.Close()
			continue
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go p.serve(nc, l)
	}
}

// Addr is the bootstrap listener's address.
func (p *Proxy) Addr() string { return p.boot.ln.Addr().String() }

// Listeners lists every listener and the broker it forwards to, the
// bootstrap first.
func (p *Proxy) Listeners() []Listener {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Listener, 0, len(p.order))
	for _, l := range p.order {
		out = append(out, Listener{Addr: l.ln.Addr().String(), Upstream: l.upstream})
	}
	return out
}

// Stats counts what the proxy did so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	brokers := len(p.listeners)
	p.mu.Unlock()
	return Stats{Accepted: p.accepted.Load(), Refused: p.refused.Load(), Requests: p.requests.Load(),
		Unrecorded: p.unrecorded.Load(), RecordedBytes: p.recordedBytes.Load(), Faults: p.faults.Load(),
		ProtocolErrors: p.protocolErrors.Load(), Brokers: brokers}
}

// Close stops listening, closes every connection and waits until every
// goroutine of the proxy has ended.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.wg.Wait()
		return nil
	}
	p.closed = true
	p.cancel()
	for _, l := range p.order {
		l.ln.Close()
	}
	for c := range p.conns {
		c.close(errProxyClosed)
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

var errProxyClosed = errors.New("proxy: closed")

// Recording is every request the proxy recorded, in arrival order, with
// what each client got back. Call it after Close.
func (p *Proxy) Recording() []rules.ClientRequest {
	p.mu.Lock()
	conns := append([]connRecord(nil), p.ended...)
	p.mu.Unlock()
	return gather(conns)
}

// reserve takes n bytes of the recording's budget, MaxRecordedBytes; once
// a reservation does not fit, none does again (the recording is the part
// before).
func (p *Proxy) reserve(n int) bool {
	if p.full.Load() {
		return false
	}
	if p.recordedBytes.Add(int64(n)) > int64(p.cfg.MaxRecordedBytes) {
		p.full.Store(true)
		return false
	}
	return true
}

// since is the time since the proxy started.
func (p *Proxy) since() time.Duration { return time.Since(p.start) }
