package proxy

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/rates"
)

// FaultKind is what the proxy does to a group request.
type FaultKind uint8

const (
	// NoFault forwards the request and its response untouched.
	NoFault FaultKind = iota
	// DropResponse forwards the request, reads the broker's response (so
	// the broker has applied the request) and, instead of relaying it,
	// closes the client's connection: the client sees its request's
	// outcome unknown, the classic lost response.
	DropResponse
	// DelayResponse holds the broker's response for Fault.Delay before
	// relaying it (and every response behind it on the connection).
	DelayResponse
	// CloseAfterForward forwards the request and closes the connection at
	// once, without waiting for the answer: the broker may or may not
	// apply it.
	CloseAfterForward
	// AnswerError answers Fault.Code itself, encoded for the request's
	// api and version, without forwarding: the broker never sees the
	// request. A code the request's api does not answer (errorResponse)
	// leaves the request as it is.
	AnswerError
)

// Fault is the proxy's decision for one group request.
type Fault struct {
	Kind FaultKind
	// Delay is DelayResponse's hold.
	Delay time.Duration
	// Code is AnswerError's error code.
	Code codec.ErrorCode
}

// String says what the fault does, as a recording's "fault" field does.
func (f Fault) String() string {
	switch f.Kind {
	case DropResponse:
		return "response dropped"
	case DelayResponse:
		return "response delayed " + f.Delay.String()
	case CloseAfterForward:
		return "connection closed after forwarding"
	case AnswerError:
		return "answered " + f.Code.String()
	}
	return ""
}

// GroupRequest is what an Injector sees of a group request before the
// proxy forwards it.
type GroupRequest struct {
	// Conn, Broker and Seq are the request's connection, the broker it
	// goes to and its position on the connection (0: the first).
	Conn   uint64
	Broker string
	Seq    int
	// N counts the group requests the proxy saw before this one, on every
	// connection.
	N      int
	Header *codec.RequestHeader
	// Heartbeat is the ConsumerGroupHeartbeat, LeaveGroup the LeaveGroup
	// request, JoinGroup, SyncGroup and ClassicHeartbeat the classic
	// requests, decoded (nil for the other apis, or a version codec does
	// not decode).
	Heartbeat        *codec.ConsumerGroupHeartbeatRequest
	LeaveGroup       *codec.LeaveGroupRequest
	JoinGroup        *codec.JoinGroupRequest
	SyncGroup        *codec.SyncGroupRequest
	ClassicHeartbeat *codec.HeartbeatRequest
}

// Injector decides the fault of each group request (ConsumerGroupHeartbeat,
// LeaveGroup, JoinGroup, SyncGroup, Heartbeat). The proxy calls it from
// every connection's goroutine: it must be safe for concurrent use, and
// must not keep the request past the call.
type Injector interface {
	Fault(r GroupRequest) Fault
}

// InjectorFunc is an Injector in a function.
type InjectorFunc func(r GroupRequest) Fault

// Fault implements Injector.
func (f InjectorFunc) Fault(r GroupRequest) Fault { return f(r) }

// Fault names of ParseRates (and of --faults), in the order they are drawn:
// the three network faults, then the error answers (a drawn error the
// request's api cannot answer leaves the request as it is: see
// errorResponse).
var faultNames = []string{"drop", "delay", "close",
	"coordinator-not-available", "not-coordinator", "unknown-member-id", "fenced-member-epoch",
	"rebalance-in-progress", "illegal-generation", "fenced-instance-id"}

// injectedCodes are the error codes the error faults answer, by name.
var injectedCodes = map[string]codec.ErrorCode{
	"coordinator-not-available": codec.CoordinatorNotAvailable,
	"not-coordinator":           codec.NotCoordinator,
	"unknown-member-id":         codec.UnknownMemberID,
	"fenced-member-epoch":       codec.FencedMemberEpoch,
	"rebalance-in-progress":     codec.RebalanceInProgress,
	"illegal-generation":        codec.IllegalGeneration,
	"fenced-instance-id":        codec.FencedInstanceID,
}

// Rates are fault probabilities in percent per group request, by name
// (drop, delay, close, and the error answers).
type Rates map[string]int

// rateGrammar is the proxy's --faults: its fault names, uniform=N over
// all of them, error=N over the error answers, at most 100 % in all
// (the grammar is internal/rates', shared with run and check).
var rateGrammar = rates.Grammar{
	Kinds: faultNames,
	Groups: map[string]func(int) map[string]int{
		"uniform": func(pct int) map[string]int { return spread(faultNames, pct) },
		"error":   func(pct int) map[string]int { return spread(faultNames[3:], pct) },
	},
	Max: 100,
}

// ParseRates reads --faults: "none", "uniform=N" (N % spread over every
// kind), "error=N" (N % spread over the error answers), or
// "KIND=PCT,..." with the names of Rates. The total may not pass 100.
func ParseRates(spec string) (Rates, error) {
	r, err := rateGrammar.Parse(spec)
	if err != nil {
		return nil, err
	}
	return Rates(r), nil
}

// spread shares pct among names, the first ones taking the remainder.
func spread(names []string, pct int) map[string]int {
	out := map[string]int{}
	for i, n := range names {
		share := pct / len(names)
		if i < pct%len(names) {
			share++
		}
		out[n] += share
	}
	return out
}

// String is the rates as ParseRates reads them, in a fixed order.
func (r Rates) String() string {
	var parts []string
	for _, n := range faultNames {
		if r[n] > 0 {
			parts = append(parts, n+"="+strconv.Itoa(r[n]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// RandomFaults draws a fault for each group request from a seeded source.
// Which request gets which fault depends on the order requests arrive in,
// which the network decides: a seed makes the draws repeatable, not a run.
type RandomFaults struct {
	rates Rates
	delay time.Duration
	mu    sync.Mutex
	rng   *rand.Rand
}

// NewRandomFaults draws faults at rates from seed; delay is DelayResponse's
// hold.
func NewRandomFaults(seed uint64, rates Rates, delay time.Duration) *RandomFaults {
	return &RandomFaults{rates: rates, delay: delay, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Fault implements Injector.
func (f *RandomFaults) Fault(r GroupRequest) Fault {
	f.mu.Lock()
	x := f.rng.IntN(100)
	f.mu.Unlock()
	for _, n := range faultNames {
		if x -= f.rates[n]; x < 0 {
			return faultNamed(n, f.delay)
		}
	}
	return Fault{}
}

// faultNamed is the fault of a name of Rates.
func faultNamed(name string, delay time.Duration) Fault {
	switch name {
	case "drop":
		return Fault{Kind: DropResponse}
	case "delay":
		return Fault{Kind: DelayResponse, Delay: delay}
	case "close":
		return Fault{Kind: CloseAfterForward}
	}
	return Fault{Kind: AnswerError, Code: injectedCodes[name]}
}

// errorResponse encodes the answer of an AnswerError fault to a request of
// key at version: a whole frame under corr, or nil when the proxy cannot
// answer it so (an api or version codec does not encode, or a code the api
// does not answer). Each api answers the codes Kafka's coordinator gives
// it: a ConsumerGroupHeartbeat the coordinator errors, UNKNOWN_MEMBER_ID
// and FENCED_MEMBER_EPOCH; a JoinGroup those but FENCED_MEMBER_EPOCH, and
// REBALANCE_IN_PROGRESS (a parked join when its group converts); a
// SyncGroup and a classic Heartbeat those and ILLEGAL_GENERATION;
// FENCED_INSTANCE_ID only to a request that names an instance. A
// heartbeat's error has MemberId null, epoch 0 and no interval
// (docs/PROTOCOL.md §B3.3); a LeaveGroup's coordinator errors are
// top-level, its UNKNOWN_MEMBER_ID per member from v3 (§B5); a JoinGroup's
// error is Kafka's error answer (generation -1, no member id, leader or
// protocol).
func errorResponse(h *codec.RequestHeader, req codec.Message, code codec.ErrorCode) []byte {
	coordinator := code == codec.CoordinatorNotAvailable || code == codec.NotCoordinator || code == codec.UnknownMemberID
	var body codec.Message
	switch m := req.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		if !coordinator && code != codec.FencedMemberEpoch && (code != codec.FencedInstanceID || !m.InstanceId.Valid) {
			return nil
		}
		body = &codec.ConsumerGroupHeartbeatResponse{ErrorCode: code, ErrorMessage: codec.Str("injected by ghostcheck proxy")}
	case *codec.LeaveGroupRequest:
		if !coordinator {
			return nil
		}
		resp := &codec.LeaveGroupResponse{ErrorCode: code}
		if code == codec.UnknownMemberID && h.RequestApiVersion >= 3 {
			resp.ErrorCode = codec.None
			for _, e := range m.Members {
				resp.Members = append(resp.Members, codec.LeaveGroupMemberResponse{MemberId: e.MemberId, GroupInstanceId: e.GroupInstanceId, ErrorCode: code})
			}
		}
		body = resp
	case *codec.JoinGroupRequest:
		if !coordinator && code != codec.RebalanceInProgress && (code != codec.FencedInstanceID || !m.GroupInstanceId.Valid) {
			return nil
		}
		resp := &codec.JoinGroupResponse{ErrorCode: code, GenerationId: -1}
		if h.RequestApiVersion < 7 {
			resp.ProtocolName = codec.Str("")
		}
		body = resp
	case *codec.SyncGroupRequest:
		if !classicAnswers(code, m.GroupInstanceId) {
			return nil
		}
		body = &codec.SyncGroupResponse{ErrorCode: code}
	case *codec.HeartbeatRequest:
		if !classicAnswers(code, m.GroupInstanceId) {
			return nil
		}
		body = &codec.HeartbeatResponse{ErrorCode: code}
	default:
		return nil
	}
	b, err := codec.AppendResponse(nil, h.CorrelationId, h.RequestApiVersion, body)
	if err != nil {
		return nil
	}
	return b
}

// classicAnswers reports whether a SyncGroup or classic Heartbeat naming
// instance inst may be answered code.
func classicAnswers(code codec.ErrorCode, inst codec.NullableString) bool {
	switch code {
	case codec.CoordinatorNotAvailable, codec.NotCoordinator, codec.UnknownMemberID, codec.RebalanceInProgress, codec.IllegalGeneration:
		return true
	case codec.FencedInstanceID:
		return inst.Valid
	}
	return false
}
