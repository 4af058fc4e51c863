package explore

import (
	"fmt"
	"time"

	"github.com/ghostcheck/ghostcheck/model"
)

// Result is what a search found.
type Result struct {
	// Config is the configuration in words.
	Config string
	// Complete: every state reachable within the depth bound (or at all,
	// without one) was explored; DepthBound: the search stopped at the
	// bound with states there left to expand; Stopped: why it stopped
	// before either ("violation", "memory", "time", "interrupted").
	Complete   bool
	DepthBound bool
	Stopped    string
	// Depth is the deepest level explored to its end (a complete search:
	// the longest shortest path to a state).
	Depth int
	// States are the distinct states found (for a shard, its own, which
	// overlap other shards'); Transitions the events tried from them;
	// Terminal the states with no event enabled (QuiescentMembership is
	// checked there).
	States, Transitions, Terminal uint64
	// V0Ghosts counts the states found holding the ghost KIP-1082 removed:
	// a member the coordinator made for a ConsumerGroupHeartbeat v0 join
	// that no process holds (its answer lost, or its connection or process
	// gone first). Expected of v0 clients, so no violation; each must be
	// gone once its session passes (QuiescentMembership, at every terminal
	// state). V0GhostDepth is the shallowest such state's depth (0: none).
	V0Ghosts     uint64
	V0GhostDepth int
	// Frontier is how many states were left to expand when it ended.
	Frontier int
	// Levels counts the states first found at each depth.
	Levels []uint64
	// Violation is the first broken rule, with a shortest trace.
	Violation *Violation
	// Clauses are the clauses of docs/PROTOCOL.md the model applied on the
	// explored transitions (model.ClauseHits).
	Clauses model.ClauseHits
	// Elapsed is the wall time, CPU the process's CPU time.
	Elapsed, CPU time.Duration
	// MemoryBytes is what the search kept: fingerprints and tree (and a
	// copy of both per worker process).
	MemoryBytes int64
	// Shard of Shards, and ShardDepth, the level where the shards split
	// (-1: they never did; every shard explored everything).
	Shard, Shards, ShardDepth int
}

// Violation is a broken rule and the shortest path to it.
type Violation struct {
	// Rule is a rule of docs/PROTOCOL.md Part C (package rules), or
	// Linearizability for impl answering otherwise than the model.
	Rule   string
	Detail string
	// Depth is the trace's length in events.
	Depth int
	// Trace is the path from the initial state, one step a line; Steps
	// the same steps, as data.
	Trace []string
	Steps []Step
	path  []event
}

// Step is one event of a trace.
type Step struct {
	// At is the time of the event (ms); for a tick, the time it moves to.
	At int64
	// Event is what happens: join, leave, close, send, deliver, lose,
	// duplicate, delay, disconnect, crash, restart, admin or tick.
	Event string
	// Client is the client slot, Process which of the slot's processes
	// (from 1), for a client's event or a message's.
	Client, Process int
	// Answer: the message the event moves is an answer (else a request);
	// Request is which of its process's requests it is or answers (from
	// 1); From, for an answer, the step (an index of Steps) that gave it.
	Answer        bool
	Request, From int
	// Sent is how many requests the slot's current process has sent once
	// the event is over, and Conns how many connections it has opened
	// (its first included).
	Sent, Conns int
	// Group and Admin are an admin LeaveGroup's group (0 or 1) and form
	// ("by instance", "by member", "fenced"); Members, how many members
	// the group held (a fenced entry of a lone member names an unknown
	// member id).
	Group   int
	Admin   string
	Members int
}

// Progress is where a running search is.
type Progress struct {
	Depth       int
	States      uint64
	Transitions uint64
	Frontier    int
	Elapsed     time.Duration
}

// String is the progress line.
func (p Progress) String() string {
	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.States) / s
	}
	return fmt.Sprintf("depth %d  states %d  transitions %d  %.0f states/s  frontier %d  %s",
		p.Depth, p.States, p.Transitions, rate, p.Frontier, p.Elapsed.Round(time.Second))
}

// Summary is the result in one sentence.
func (r *Result) Summary() string {
	switch {
	case r.Violation != nil:
		return fmt.Sprintf("violation: %s at depth %d (%d states, %d transitions explored)", r.Violation.Rule, r.Violation.Depth, r.States, r.Transitions)
	case r.Complete:
		return fmt.Sprintf("complete: every reachable state explored (%d states, %d transitions, depth %d)", r.States, r.Transitions, r.Depth)
	case r.DepthBound:
		return fmt.Sprintf("complete: every reachable state up to depth %d explored (%d states, %d transitions; %d states at depth %d not expanded)",
			r.Depth, r.States, r.Transitions, r.Frontier, r.Depth)
	}
	return fmt.Sprintf("stopped (%s) at depth %d: %d states, %d transitions explored, %d left to expand", r.Stopped, r.Depth, r.States, r.Transitions, r.Frontier)
}
