package explore

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Protocol is the group protocol the explored clients speak.
type Protocol string

// The protocols.
const (
	// Consumer is KIP-848's protocol: ConsumerGroupHeartbeat v0/v1 and the
	// leave it carries, driven by the reference client (model/client).
	Consumer Protocol = "consumer"
	// Classic is the classic group protocol: JoinGroup, SyncGroup,
	// Heartbeat and LeaveGroup, driven by the reference classic consumer
	// (client.Classic), with the requests the coordinator holds (KIP-394's
	// pending members, KIP-345's static members).
	Classic Protocol = "classic"
	// Mixed has consumer and classic clients in turn (the first a
	// consumer one), in the same groups: a group of one kind gives way to
	// the other when it empties (docs/PROTOCOL.md A6.4).
	Mixed Protocol = "mixed"
)

// ParseProtocol accepts a protocol's name.
func ParseProtocol(s string) (Protocol, error) {
	switch p := Protocol(s); p {
	case Consumer, Classic, Mixed:
		return p, nil
	}
	return "", fmt.Errorf("explore: unknown protocol %q (known: %s, %s, %s)", s, Consumer, Classic, Mixed)
}

// Fault is one way things go wrong that the explorer branches on. Faults
// are a set; every one but Reorder costs one of Config.MaxFaults along a
// path, wherever it happens.
type Fault uint16

// The faults.
const (
	// LostRequest: a request never reaches the coordinator (the client
	// times out and retries).
	LostRequest Fault = 1 << iota
	// LostResponse: the coordinator handles a request; its answer never
	// reaches the client.
	LostResponse
	// Duplicate: a request reaches the coordinator twice.
	Duplicate
	// Delay: a message stays on its way while time moves on (to the next
	// deadline, and the next): it arrives after timers fire. What is
	// behind it on its connection waits with it (TCP).
	Delay
	// Disconnect: a client's connection closes; what is on it is lost and
	// the client goes on on a new one.
	Disconnect
	// Crash: a client process dies without a leave; its requests already
	// written still arrive, then its connection closes. A later join (an
	// operation) starts a new process in its place.
	Crash
	// CoordinatorRestart: the coordinator restarts (model.Restart): every
	// connection closes, what is in flight is lost, timers start afresh.
	CoordinatorRestart
	// Reorder: messages on different connections arrive in any order
	// (without it, in the order they were sent). It opens interleavings
	// rather than happening once, so it costs nothing of MaxFaults.
	Reorder
	faultEnd
)

var faultNames = []struct {
	f    Fault
	name string
}{
	{LostRequest, "lost-request"}, {LostResponse, "lost-response"}, {Duplicate, "duplicate"}, {Delay, "delay"},
	{Disconnect, "disconnect"}, {Crash, "crash"}, {CoordinatorRestart, "coordinator-restart"}, {Reorder, "reorder"},
}

// AllFaults is every fault.
const AllFaults = faultEnd - 1

// Has reports whether f includes g.
func (f Fault) Has(g Fault) bool { return f&g != 0 }

// String lists the faults' names, comma-separated ("none" for none).
func (f Fault) String() string {
	var names []string
	for _, n := range faultNames {
		if f.Has(n.f) {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// ParseFaults reads a comma-separated list of fault names; "none" and ""
// are no fault, "all" every one.
func ParseFaults(s string) (Fault, error) {
	var f Fault
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch part {
		case "", "none":
			continue
		case "all":
			f |= AllFaults
			continue
		}
		found := false
		for _, n := range faultNames {
			if n.name == part {
				f |= n.f
				found = true
			}
		}
		if !found {
			var known []string
			for _, n := range faultNames {
				known = append(known, n.name)
			}
			return 0, fmt.Errorf("explore: unknown fault %q (known: %s, all, none)", part, strings.Join(known, ", "))
		}
	}
	return f, nil
}

// Client is one client of the configuration: a slot in which processes of
// the reference client run one after another (a crash or a close ends
// one; the next join starts another).
type Client struct {
	// Group is the index of the client's group (0 or 1).
	Group int
	// Instance, when set, makes the client static (KIP-345) with this
	// group instance id; its processes share it.
	Instance string
	// HeartbeatVersion is 1 for a KIP-1082 client (it makes its member
	// id), 0 for an old one (the coordinator makes it).
	HeartbeatVersion int16
	// Regex subscribes by regular expression (v1 only) instead of by the
	// topic's name.
	Regex bool
	// NullOwned sends TopicPartitions null on a heartbeat whose owned
	// partitions did not change, as Java's consumer does.
	NullOwned bool
	// Classic makes the client a classic consumer (client.Classic):
	// JoinGroup v9, SyncGroup v5, Heartbeat v4, LeaveGroup v5 (the fields
	// above but Group and Instance do not apply). Config.Protocol sets it.
	Classic bool
}

// Strategy is the order of the search.
type Strategy string

// The strategies.
const (
	// BreadthFirst explores level by level: the first violation found is
	// at the smallest depth, so its trace is a shortest one.
	BreadthFirst Strategy = "bfs"
	// IterativeDeepening runs depth-first searches to depth 1, 2, ...:
	// the same shortest traces, with a stack instead of levels (one
	// worker).
	IterativeDeepening Strategy = "iddfs"
)

// Config is what the explorer searches: the clients, what they may do,
// the faults, and the bounds.
type Config struct {
	Protocol Protocol
	Clients  []Client
	// Ops is how many operations (a join, a leave) each client performs
	// in all, at any moment it chooses; every process also closes at a
	// moment of its choosing, which costs nothing.
	Ops int
	// Faults are the faults that may happen; MaxFaults bounds how many
	// (Reorder aside) happen along one path.
	Faults    Fault
	MaxFaults int
	// Admin is how many LeaveGroups an admin sends along a path (admin.go).
	Admin int
	// Depth bounds the number of events along a path; 0 is no bound (the
	// search ends when no new state is found).
	Depth int
	// Partitions of the one topic every client subscribes to.
	Partitions int32
	// InitialRebalanceDelayMs is the coordinator's
	// group.initial.rebalance.delay.ms for classic groups (0: none).
	InitialRebalanceDelayMs int32
	// The coordinator's timers and the clients' (milliseconds). Time moves
	// only from one deadline to the next, so only their ratios matter.
	SessionTimeoutMs    int64
	HeartbeatIntervalMs int32
	RebalanceTimeoutMs  int32
	RequestTimeoutMs    int64
	// Mutants are planted in impl (impl.Mutants): the impl the model is
	// held to in lockstep.
	Mutants impl.Mutants

	Strategy Strategy
	// Workers expand states in parallel (breadth-first only); 0 is one.
	Workers int
	// MemoryBytes caps what the search keeps per state (its fingerprint
	// and its place in the tree); 0 is no cap.
	MemoryBytes int64
	// TimeLimit stops the search after this long; 0 is none.
	TimeLimit time.Duration
	// Shard and Shards split the search: shard i of n explores the
	// subtrees below the first level with at least ShardLevelStates*n
	// states whose root's fingerprint is i modulo n. Shards 0 or 1 is the
	// whole search.
	Shard, Shards int
	// NoSymmetry turns client symmetry off: identically configured clients
	// are then told apart (for tests of the reduction).
	NoSymmetry bool
	// Progress, when set, is called about once a second with where the
	// search is, from a goroutine of the explorer's.
	Progress func(Progress) `json:"-"`
	// StartWorker, when set, runs each of the Workers (breadth-first, two
	// or more) as a process of its own rather than a goroutine: it starts
	// one and returns its standard input (Write, and Close to let it go)
	// and output (Read), with ServeWorker at the other end. Workers in one
	// Go process share its heap, allocator and collector; processes share
	// only the machine, and each keeps a copy of the fingerprints and the
	// tree (process.go). A search with a test's hooks (below) keeps its
	// workers in process.
	StartWorker func() (io.ReadWriteCloser, error) `json:"-"`

	// extra is a test's invariant, checked on every state besides the
	// rules'; onState, a test's look at every state found, and onEdge at
	// every transition tried (both on one worker).
	extra   func(rules.Observation) error
	onState func(w *worker, s *state, fp uint64)
	onEdge  func(t *state, fp uint64, isNew bool)
	// keepGoing has the search go on past violations (a test of the
	// search itself on configurations that break rules).
	keepGoing bool
}

// IsClassic reports whether client i is a classic consumer: every client
// of the classic protocol, every second one (from the second) of mixed.
func (c *Config) IsClassic(i int) bool {
	return c.Protocol == Classic || c.Protocol == Mixed && i%2 == 1
}

// ShardLevelStates is how many states per shard the level where shards
// split must hold at least.
const ShardLevelStates = 16

// Default returns the default configuration: two KIP-1082 clients in one
// group, one of them static (instance "i1"), two operations each (a join,
// then a leave or, after a close, a join again: a static restart), lost
// requests and lost responses with one fault per path, a topic of two
// partitions, no depth bound (the search ends when it finds nothing new:
// about 2.4 million states), breadth-first on one worker.
func Default() Config {
	return Config{
		Protocol:                Consumer,
		Clients:                 Clients(2, 1, 1, 0),
		Ops:                     2,
		Faults:                  LostRequest | LostResponse,
		MaxFaults:               1,
		Partitions:              2,
		InitialRebalanceDelayMs: 1000,
		SessionTimeoutMs:        3000,
		HeartbeatIntervalMs:     1000,
		RebalanceTimeoutMs:      2000,
		RequestTimeoutMs:        2000,
		Strategy:                BreadthFirst,
		Workers:                 1,
	}
}

// Clients returns n clients spread over groups in turn, the first static
// of them static (instance ids "i1", "i2", ...), the last v0 of them at
// ConsumerGroupHeartbeat v0.
func Clients(n, groups, static, v0 int) []Client {
	out := make([]Client, n)
	for i := range out {
		out[i] = Client{Group: i % max(groups, 1), HeartbeatVersion: 1}
		if i < static {
			out[i].Instance = fmt.Sprintf("i%d", i+1)
		}
		if i >= n-v0 {
			out[i].HeartbeatVersion = 0
		}
	}
	return out
}

// maxClients bounds the configuration: the state space grows as the
// clients' product.
const maxClients = 4

// maxIDs is how many member ids a path may make (ids.go numbers them in
// two hex digits).
const maxIDs = 255

// validate checks the configuration and fills in what is left zero.
func (c *Config) validate() error {
	if c.Protocol == "" {
		c.Protocol = Consumer
	}
	if _, err := ParseProtocol(string(c.Protocol)); err != nil {
		return err
	}
	if len(c.Clients) < 1 || len(c.Clients) > maxClients {
		return fmt.Errorf("explore: %d clients; between 1 and %d", len(c.Clients), maxClients)
	}
	// The protocol says which clients are classic (a copy: the caller's
	// list is left as it is).
	c.Clients = slices.Clone(c.Clients)
	for i := range c.Clients {
		c.Clients[i].Classic = c.IsClassic(i)
	}
	if c.InitialRebalanceDelayMs < 0 {
		return errors.New("explore: a negative initial rebalance delay")
	}
	for i, cl := range c.Clients {
		if cl.Group < 0 || cl.Group > 1 {
			return fmt.Errorf("explore: client %d in group %d; there are groups 0 and 1", i, cl.Group)
		}
		if cl.HeartbeatVersion != 0 && cl.HeartbeatVersion != 1 {
			return fmt.Errorf("explore: client %d at ConsumerGroupHeartbeat v%d; 0 or 1", i, cl.HeartbeatVersion)
		}
		if cl.Regex && cl.HeartbeatVersion < 1 {
			return fmt.Errorf("explore: client %d subscribes by regex at ConsumerGroupHeartbeat v0, which has none", i)
		}
	}
	if c.Ops < 1 || c.Ops > 8 {
		return fmt.Errorf("explore: %d operations per client; between 1 and 8", c.Ops)
	}
	if c.MaxFaults < 0 || c.MaxFaults > 8 {
		return fmt.Errorf("explore: %d faults per path; between 0 and 8", c.MaxFaults)
	}
	if c.Admin < 0 || c.Admin > 8 {
		return fmt.Errorf("explore: %d admin LeaveGroups per path; between 0 and 8", c.Admin)
	}
	if c.Faults&^AllFaults != 0 {
		return fmt.Errorf("explore: unknown faults %#x", uint16(c.Faults))
	}
	if c.Depth < 0 || c.Depth > 250 {
		return fmt.Errorf("explore: depth %d; between 0 (no bound) and 250", c.Depth)
	}
	if c.Partitions < 0 || c.Partitions > 16 {
		return fmt.Errorf("explore: %d partitions; between 0 and 16", c.Partitions)
	}
	if c.SessionTimeoutMs <= 0 || c.HeartbeatIntervalMs <= 0 || c.RebalanceTimeoutMs <= 0 || c.RequestTimeoutMs <= 0 {
		return errors.New("explore: every timeout and interval must be positive")
	}
	if c.Strategy == "" {
		c.Strategy = BreadthFirst
	}
	if c.Strategy != BreadthFirst && c.Strategy != IterativeDeepening {
		return fmt.Errorf("explore: unknown strategy %q (bfs or iddfs)", c.Strategy)
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.Workers > 64 {
		return fmt.Errorf("explore: %d workers; at most 64", c.Workers)
	}
	if c.Strategy == IterativeDeepening && c.Workers > 1 {
		return errors.New("explore: iterative deepening runs on one worker")
	}
	if c.Shards <= 1 {
		c.Shard, c.Shards = 0, 1
	}
	if c.Shard < 0 || c.Shard >= c.Shards {
		return fmt.Errorf("explore: shard %d of %d", c.Shard, c.Shards)
	}
	if c.Shards > 1 && c.Strategy != BreadthFirst {
		return errors.New("explore: shards split a breadth-first search")
	}
	return nil
}

// Describe says the configuration in one line.
func (c *Config) Describe() string {
	static, v0 := 0, 0
	groups := map[int]bool{}
	for i, cl := range c.Clients {
		if cl.Instance != "" {
			static++
		}
		if cl.HeartbeatVersion == 0 && !c.IsClassic(i) {
			v0++
		}
		groups[cl.Group] = true
	}
	depth := "no depth bound"
	if c.Depth > 0 {
		depth = fmt.Sprintf("depth %d", c.Depth)
	}
	s := fmt.Sprintf("%s protocol, %d clients (static %d, v0 %d) in %d group(s), %d op(s) each, faults %s (at most %d per path), %d admin LeaveGroup(s), %d partitions, %s",
		c.Protocol, len(c.Clients), static, v0, len(groups), c.Ops, c.Faults, c.MaxFaults, c.Admin, c.Partitions, depth)
	if c.Mutants.Any() {
		s += ", impl mutant " + c.Mutants.String()
	}
	return s
}
