package wire

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"slices"
	"strconv"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Cluster is a client of a Kafka cluster: it starts from bootstrap
// addresses, learns the brokers from Metadata, finds each group's
// coordinator with FindCoordinator and sends the group's requests there,
// retrying (bounded, with Backoff) when the coordinator has moved, is not
// available or is still loading, as Kafka's clients do — and reports each
// retry as an Event instead of hiding it.
//
// It keeps at most one connection of its own per broker, negotiated
// (ApiVersions) and authenticated (Dialer's TLS and SASL) when first
// used, each with KIP-1313 headers carrying the cluster's one client
// instance id: the id belongs to the Cluster, made once before its first
// connection, the same on every broker. Callers that need connections of
// their own (one per simulated client process, say) route with Do and
// open them with Dial.
//
// What a broker sends is bounded before it is kept: the brokers listed
// (ClusterOptions.MaxBrokers), a host's length, a port's range, the
// retries and the time of one call (Backoff). A context bounds dials and
// the waits between retries; a round trip in flight is bounded by the
// Dialer's Options.Timeout. A Cluster is safe for concurrent use; calls
// to one broker's connection are serialized.
type Cluster struct {
	o         ClusterOptions
	instance  codec.UUID
	bootstrap []string

	mu           sync.Mutex
	brokers      map[int32]*brokerConn
	coordinators map[string]int32
	rng          *mrand.Rand
	open         map[*Conn]struct{} // every connection of the cluster's own, for Close
	closed       bool
	// standalone: the bootstrap broker offers no Metadata (a coordinator
	// standing alone, as ghostcheck serve is): the cluster is that one
	// broker, StandaloneID, and it coordinates every group.
	standalone bool
}

// StandaloneID is the id a Cluster gives a broker that offers no
// Metadata: a coordinator standing alone, which coordinates every group.
const StandaloneID int32 = 0

// errNoMetadata is a broker's ApiVersions without Metadata.
var errNoMetadata = errors.New("the broker offers no Metadata")

// ClusterOptions shape a Cluster.
type ClusterOptions struct {
	// Dialer makes each connection (timeouts, TLS, SASL).
	Dialer Dialer
	// ClientID goes on the first request of each of the cluster's
	// connections ("": "ghostcheck").
	ClientID string
	// InstanceID is the KIP-1313 client instance id of every header
	// (zero: drawn from crypto/rand when the Cluster is made).
	InstanceID codec.UUID
	// Negotiate shapes each connection's ApiVersions.
	Negotiate NegotiateOptions
	// Backoff shapes the retries of routed calls.
	Backoff Backoff
	// MaxBrokers caps the brokers kept from Metadata and FindCoordinator
	// (0: DefaultMaxBrokers).
	MaxBrokers int
	// Seed seeds the backoff jitter (0: a random seed), so a run can
	// wait as another did.
	Seed uint64
}

// DefaultMaxBrokers caps the brokers a Cluster keeps when
// ClusterOptions.MaxBrokers is 0.
const DefaultMaxBrokers = 1024

// maxHostLen caps a broker's host as Metadata or FindCoordinator name it:
// a DNS name is at most 253 bytes.
const maxHostLen = 255

// Broker is one broker of the cluster, as Metadata or FindCoordinator
// named it.
type Broker struct {
	ID   int32
	Addr string // host:port
	Rack string
}

// Connect makes a Cluster: its client instance id first, then Metadata
// from the first bootstrap address that answers (each tried in order).
// An authentication refusal (ErrAuth) ends it at once: the other
// addresses would refuse the same credentials.
func Connect(ctx context.Context, bootstrap []string, o ClusterOptions) (*Cluster, error) {
	if len(bootstrap) == 0 {
		return nil, errors.New("wire: no bootstrap address")
	}
	if o.ClientID == "" {
		o.ClientID = "ghostcheck"
	}
	if o.MaxBrokers <= 0 {
		o.MaxBrokers = DefaultMaxBrokers
	}
	o.Backoff = o.Backoff.withDefaults()
	if o.Dialer.SASL != nil {
		if err := o.Dialer.SASL.Check(); err != nil {
			return nil, err
		}
	}
	instance := o.InstanceID
	if instance.IsZero() {
		var err error
		if instance, err = NewInstanceID(rand.Reader); err != nil {
			return nil, err
		}
	}
	seed := o.Seed
	if seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	}
	c := &Cluster{o: o, instance: instance, bootstrap: slices.Clone(bootstrap),
		brokers: map[int32]*brokerConn{}, coordinators: map[string]int32{},
		rng: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), open: map[*Conn]struct{}{}}
	if err := c.Refresh(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Standalone reports whether the bootstrap broker offered no Metadata:
// the cluster is that one broker (StandaloneID), coordinating every
// group, found without FindCoordinator.
func (c *Cluster) Standalone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.standalone
}

// InstanceID is the client instance id every header of the cluster's
// connections carries.
func (c *Cluster) InstanceID() codec.UUID { return c.instance }

// Brokers are the brokers known, by id.
func (c *Cluster) Brokers() []Broker {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Broker, 0, len(c.brokers))
	for _, b := range c.brokers {
		out = append(out, b.Broker)
	}
	slices.SortFunc(out, func(a, b Broker) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Broker is the broker with id, if known.
func (c *Cluster) Broker(id int32) (Broker, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.brokers[id]
	if !ok {
		return Broker{}, false
	}
	return b.Broker, true
}

// Close closes every connection of the cluster's own (a round trip on one
// returns at once with an error). Connections made with Dial are the
// caller's.
func (c *Cluster) Close() error {
	c.mu.Lock()
	c.closed = true
	open := c.open
	c.open = map[*Conn]struct{}{}
	c.mu.Unlock()
	for conn := range open {
		conn.Close()
	}
	return nil
}

// Dial opens a new connection to broker id, of the caller's, with the
// cluster's Dialer and headers from hm (whose instance id should be the
// process's: one per simulated client, or the cluster's).
func (c *Cluster) Dial(ctx context.Context, id int32, hm *Headers) (*Conn, *Prelude, error) {
	b, ok := c.Broker(id)
	if !ok {
		return nil, nil, fmt.Errorf("wire: no broker %d known", id)
	}
	conn, p, err := c.o.Dialer.Dial(ctx, b.Addr, hm)
	if err != nil {
		return nil, nil, dialFailed(b.ID, err)
	}
	return conn, p, nil
}

// Versions are broker id's api versions, as its connection negotiated
// them (dialling it if needed).
func (c *Cluster) Versions(ctx context.Context, id int32) (Versions, error) {
	b, err := c.broker(id)
	if err != nil {
		return nil, err
	}
	return b.negotiated(ctx, c)
}

// RoundTripTo sends req at version to broker id on the cluster's
// connection to it, without routing or retries (a connection the broker
// had closed while idle is dialled again first). For requests about a
// broker rather than a group: ApiVersions, Metadata, a header check on
// each broker.
func (c *Cluster) RoundTripTo(ctx context.Context, id int32, version int16, req codec.Message) (codec.Message, error) {
	b, err := c.broker(id)
	if err != nil {
		return nil, err
	}
	resp, _, err := b.roundTrip(ctx, c, fixedVersion(version, req))
	return resp, err
}

func (c *Cluster) broker(id int32) (*brokerConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClusterClosed
	}
	b, ok := c.brokers[id]
	if !ok {
		return nil, fmt.Errorf("wire: no broker %d known", id)
	}
	return b, nil
}

// jitter draws the uniform number a backoff's jitter is made from.
func (c *Cluster) jitter() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rng.Float64()
}

// Refresh asks Metadata for the brokers again: of a known broker first,
// then of the bootstrap addresses, and replaces the broker list with its
// answer (a broker gone, or at a new address, loses its connection and
// the groups it coordinated).
func (c *Cluster) Refresh(ctx context.Context) error { return c.refresh(ctx, true) }

// refresh is Refresh; known says whether to ask the known brokers before
// the bootstrap addresses.
func (c *Cluster) refresh(ctx context.Context, known bool) error {
	var errs []error
	var cands []*brokerConn
	if known {
		cands = c.candidates()
	}
	for _, b := range cands {
		if err := c.refreshFrom(ctx, b); err == nil {
			return nil
		} else if errors.Is(err, ErrAuth) || errors.Is(err, ErrClusterClosed) {
			return err
		} else {
			errs = append(errs, err)
		}
	}
	for _, addr := range c.bootstrap {
		b := &brokerConn{Broker: Broker{ID: -1, Addr: addr}}
		err := c.refreshFrom(ctx, b)
		b.close(c)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrAuth) || errors.Is(err, ErrClusterClosed) {
			return err
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("wire: no broker answered Metadata: %w", errors.Join(errs...))
}

func (c *Cluster) refreshFrom(ctx context.Context, b *brokerConn) error {
	resp, _, err := b.roundTrip(ctx, c, func(vs Versions) (int16, codec.Message, error) {
		if vs.Max(codec.Metadata) < 0 {
			return 0, nil, errNoMetadata
		}
		v, err := vs.Pick(codec.Metadata, 1, codec.Lookup(codec.Metadata).MaxVersion)
		if err != nil {
			if v, err = vs.Pick(codec.Metadata, 0, 0); err != nil {
				return 0, nil, err
			}
		}
		req := codec.NewMetadataRequest()
		if v >= 1 {
			req.Topics = []codec.MetadataRequestTopic{} // none: only the brokers
		}
		return v, req, nil
	})
	if errors.Is(err, errNoMetadata) {
		// A coordinator standing alone: it is the cluster, and the
		// bootstrap connection, negotiated already, becomes its.
		c.mu.Lock()
		c.standalone = true
		c.mu.Unlock()
		c.replaceBrokers([]Broker{{ID: StandaloneID, Addr: b.Addr}})
		if nb, err := c.broker(StandaloneID); err == nil && nb != b {
			b.handOver(nb)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: Metadata: %w", b.Addr, err)
	}
	brokers, err := c.brokersOf(resp.(*codec.MetadataResponse))
	if err != nil {
		return fmt.Errorf("%s: Metadata: %w", b.Addr, err)
	}
	c.replaceBrokers(brokers)
	return nil
}

// brokersOf checks and keeps the brokers a Metadata answer lists.
func (c *Cluster) brokersOf(r *codec.MetadataResponse) ([]Broker, error) {
	if r.ErrorCode != codec.None {
		return nil, &BrokerError{Broker: -1, API: codec.Metadata, Code: r.ErrorCode}
	}
	if len(r.Brokers) == 0 {
		return nil, errors.New("the answer lists no broker")
	}
	if len(r.Brokers) > c.o.MaxBrokers {
		return nil, fmt.Errorf("the answer lists %d brokers, more than the %d kept (ClusterOptions.MaxBrokers)", len(r.Brokers), c.o.MaxBrokers)
	}
	out := make([]Broker, 0, len(r.Brokers))
	seen := make(map[int32]string, len(r.Brokers))
	for _, mb := range r.Brokers {
		addr, err := brokerAddr(mb.NodeId, mb.Host, mb.Port)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[mb.NodeId]; dup {
			return nil, fmt.Errorf("broker %d is listed twice (%s, %s)", mb.NodeId, prev, addr)
		}
		seen[mb.NodeId] = addr
		out = append(out, Broker{ID: mb.NodeId, Addr: addr, Rack: capString(mb.Rack.Value)})
	}
	return out, nil
}

// brokerAddr checks a broker's id, host and port as an answer names them
// and makes its address.
func brokerAddr(id int32, host string, port int32) (string, error) {
	switch {
	case id < 0:
		return "", fmt.Errorf("broker id %d is negative", id)
	case host == "" || len(host) > maxHostLen:
		return "", fmt.Errorf("broker %d: host of %d bytes (want 1-%d)", id, len(host), maxHostLen)
	case port <= 0 || port > 65535:
		return "", fmt.Errorf("broker %d: port %d out of range", id, port)
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port))), nil
}

// replaceBrokers makes bs the brokers known, keeping the connections of
// those unchanged.
func (c *Cluster) replaceBrokers(bs []Broker) {
	c.mu.Lock()
	next := make(map[int32]*brokerConn, len(bs))
	var gone []*brokerConn
	for _, b := range bs {
		if old, ok := c.brokers[b.ID]; ok && old.Broker == b {
			next[b.ID] = old // a brokerConn's Broker never changes: it is read without a lock
			continue
		}
		next[b.ID] = &brokerConn{Broker: b}
	}
	for id, old := range c.brokers {
		if next[id] != old {
			gone = append(gone, old)
			c.forgetBrokerLocked(id)
		}
	}
	c.brokers = next
	c.mu.Unlock()
	for _, b := range gone {
		b.close(c)
	}
}

// learnBroker keeps a broker FindCoordinator named: new, or at a new
// address.
func (c *Cluster) learnBroker(b Broker) (*brokerConn, error) {
	c.mu.Lock()
	old, ok := c.brokers[b.ID]
	if ok && old.Addr == b.Addr {
		c.mu.Unlock()
		return old, nil
	}
	if !ok && len(c.brokers) >= c.o.MaxBrokers {
		c.mu.Unlock()
		return nil, fmt.Errorf("broker %d would be one more than the %d kept (ClusterOptions.MaxBrokers)", b.ID, c.o.MaxBrokers)
	}
	nb := &brokerConn{Broker: b}
	c.brokers[b.ID] = nb
	if ok {
		c.forgetBrokerLocked(b.ID)
	}
	c.mu.Unlock()
	if ok {
		old.close(c)
	}
	return nb, nil
}

// forgetBrokerLocked forgets the groups broker id coordinated.
func (c *Cluster) forgetBrokerLocked(id int32) {
	for g, cid := range c.coordinators {
		if cid == id {
			delete(c.coordinators, g)
		}
	}
}

// candidates are the brokers to ask for Metadata or a coordinator: those
// with a connection open first, then the others, each by id.
func (c *Cluster) candidates() []*brokerConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*brokerConn, 0, len(c.brokers))
	for _, b := range c.brokers {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *brokerConn) int {
		ao, bo := a.isOpen(), b.isOpen()
		if ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}
