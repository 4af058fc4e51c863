package driver

import (
	"errors"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Target is a group coordinator under test, reached through the wire
// vocabulary of package codec. Implement it to run ghostcheck's checks
// against your own coordinator (a broker, a fake, a proxy) in your own go
// test; see the package example.
//
// The driver calls a Target from one goroutine at a time unless the plan asks
// for parallel delivery, in which case Handle is called concurrently (for
// different connections) and must be safe for that.
type Target interface {
	// Handle delivers one request that a client sent on conn, and returns
	// the coordinator's response body, to be encoded at the request's
	// version. An error means no response will ever come (a broker closes
	// the connection); the driver records the outcome as unknown.
	Handle(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error)
	// Disconnect closes a connection: the coordinator forgets its
	// per-connection context (KIP-1313's first ClientId).
	Disconnect(connID uint64)
	// Advance moves the coordinator's clock to nowMs (milliseconds since
	// the run began; never backwards) and lets every session and rebalance
	// timeout due by then fire.
	Advance(nowMs int64) error
}

// Snapshotter is implemented by targets that can show their whole state,
// including what ConsumerGroupDescribe cannot (pending revocations). The
// driver then checks invariants on snapshots after every round; without it,
// it observes through ConsumerGroupDescribe only. The driver and the
// invariants only read a snapshot, so a target may hand out the same
// group snapshot again while the group has not changed.
type Snapshotter interface {
	Snapshot() []rules.GroupSnapshot
}

// Restarter is implemented by targets that can restart their coordinator
// (a broker restart or coordinator failover, simulated at once between two
// rounds): what the coordinator persists survives, its connections,
// per-connection context and timers do not (model.Coordinator.Restart
// defines it). Plans with restarts need such a target; see CanRestart.
type Restarter interface {
	Restart() error
}

// ErrCannotRestart is what Restart returns on a target that cannot restart.
var ErrCannotRestart = errors.New("driver: the target cannot restart its coordinator")

// CanRestart reports whether t can run plans with coordinator restarts.
func CanRestart(t Target) bool {
	r, ok := t.(Restarter)
	if !ok {
		return false
	}
	if c, ok := r.(interface{ canRestart() bool }); ok {
		return c.canRestart()
	}
	return true
}

// ModelExacter is implemented by targets meant to answer exactly as the
// reference model does, byte for byte (ghostcheck's model and impl): Check
// at LevelAuto holds them to the model (LevelExact). Any other coordinator
// has its own assignor, error messages and timing, which the exact level
// would condemn; it is held to what the protocol promises a client can see
// (LevelObservable) unless the caller asks for more.
type ModelExacter interface {
	ModelExact() bool
}

// IsModelExact reports whether t declares itself model-exact.
func IsModelExact(t Target) bool {
	m, ok := t.(ModelExacter)
	return ok && m.ModelExact()
}

// Funcs adapts plain functions to a Target, for coordinators that have a
// different method set (such as ghostcheck's own impl). SnapshotFunc is
// optional; use WithSnapshot to expose it.
type Funcs struct {
	HandleFunc     func(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error)
	DisconnectFunc func(connID uint64)
	AdvanceFunc    func(nowMs int64) error
	// RestartFunc, when set, makes the target a Restarter.
	RestartFunc func() error
	// Exact declares the coordinator model-exact (ModelExacter): set it
	// only for one meant to answer byte for byte as the model does.
	Exact bool
}

// ModelExact implements ModelExacter.
func (f Funcs) ModelExact() bool { return f.Exact }

// Restart implements Restarter: ErrCannotRestart without a RestartFunc.
func (f Funcs) Restart() error {
	if f.RestartFunc == nil {
		return ErrCannotRestart
	}
	return f.RestartFunc()
}

func (f Funcs) canRestart() bool { return f.RestartFunc != nil }

// Handle implements Target.
func (f Funcs) Handle(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	return f.HandleFunc(conn, h, req)
}

// Disconnect implements Target.
func (f Funcs) Disconnect(connID uint64) {
	if f.DisconnectFunc != nil {
		f.DisconnectFunc(connID)
	}
}

// Advance implements Target.
func (f Funcs) Advance(nowMs int64) error {
	if f.AdvanceFunc != nil {
		return f.AdvanceFunc(nowMs)
	}
	return nil
}

// WithSnapshot returns a Target that is also a Snapshotter (and a Parker
// when t is one).
func WithSnapshot(t Target, snapshot func() []rules.GroupSnapshot) Target {
	if p, ok := t.(Parker); ok {
		return &parkingSnapshotTarget{snapshotTarget{t, snapshot}, p}
	}
	return &snapshotTarget{t, snapshot}
}

// parkingSnapshotTarget is WithSnapshot of a Parker.
type parkingSnapshotTarget struct {
	snapshotTarget
	p Parker
}

// Released forwards to the wrapped target.
func (s *parkingSnapshotTarget) Released() []Release { return s.p.Released() }

type snapshotTarget struct {
	Target
	snap func() []rules.GroupSnapshot
}

func (s *snapshotTarget) Snapshot() []rules.GroupSnapshot { return s.snap() }

// Restart forwards to the wrapped target.
func (s *snapshotTarget) Restart() error {
	if r, ok := s.Target.(Restarter); ok {
		return r.Restart()
	}
	return ErrCannotRestart
}

func (s *snapshotTarget) canRestart() bool { return CanRestart(s.Target) }

// ModelExact forwards to the wrapped target.
func (s *snapshotTarget) ModelExact() bool { return IsModelExact(s.Target) }

// ErrNoResponse is what a Target returns (wrapped) when a request may or
// may not have been processed (a connection reset with the request
// written). Any other error means the coordinator refused the request
// without applying it (a broker closing the connection on an unsupported
// version).
var ErrNoResponse = errors.New("driver: no response, outcome unknown")

// Conn names the connection a request travels on (Conn, which
// every operation of a history records).
type Conn = history.Conn
