package rules

import "github.com/ghostcheck/ghostcheck/codec"

// Process is what the harness knows of one client process when it observes
// the coordinator.
type Process struct {
	Name             string
	GroupID          string
	ClientInstanceID codec.UUID
	// MemberID is the id the process holds now ("" for a v0 process that
	// has not learned one).
	MemberID string
	// Live is false once the process crashed or closed.
	Live bool
	// Left is true while a live process is deliberately outside its group
	// (it left and has not joined again).
	Left bool
	// Joined is true while the process believes it is a member.
	Joined bool
	// InFlight are member ids carried by responses on their way to the
	// process: it may still learn them.
	InFlight []string
	// AllIDs are every member id attributable to the process: its own,
	// and every id the coordinator made for one of its requests (seen in
	// a response, delivered or not).
	AllIDs []string
	// GraceUntil is the time before which a member the process abandoned
	// (by crashing, closing or leaving) may still exist: exactly, the
	// coordinator time of its last successful join or heartbeat (epoch
	// >= 0; error responses and leaves do not refresh a session, A4) plus
	// one session timeout, and if the coordinator restarted before that
	// end, the restart's time plus one session timeout (a restart starts
	// every session afresh: model.Coordinator.Restart). A harness that cannot tell which requests
	// succeeded may use the last time the coordinator processed one of
	// its requests instead, a later bound that loosens the check.
	GraceUntil int64

	// The fields below are a classic client process's (docs/PROTOCOL.md
	// A6.6); a ConsumerGroupHeartbeat process leaves them zero.

	// Classic marks a classic client process.
	Classic bool
	// OldIDsUntil is the time before which the process, live, may still
	// account for a member under an id of AllIDs it no longer holds, in
	// a plan whose groups change protocol (docs/PROTOCOL.md A7): a
	// conversion or a coordinator restart started that member's session
	// again (a restart may bring back a member removed since the group's
	// last record, B8.14). 0 in every other plan.
	OldIDsUntil int64
	// Lost are the member ids the coordinator made for the process's
	// JoinGroups whose answers never reached it (lost, dropped as the
	// answer to a duplicate, written to a closed connection, or come after
	// it gave up) and that no answer on its way carries: ids the live
	// process will never learn, in order. A dynamic member under one is
	// KIP-394's ghost (NoGhosts).
	Lost []string
	// Abandoned are the member ids the process sent a LeaveGroup for, in
	// order: it left them and may join again under a new id, so a member
	// of one may outlive the leave by its grace when the leave was lost
	// (OneMemberPerProcess).
	Abandoned []string
	// UnnamedJoins counts the process's JoinGroups v0-v3 with MemberId ""
	// the coordinator holds: each made a member no answer has named yet.
	UnnamedJoins int
}

// Observation is one look at the coordinator.
type Observation struct {
	Now       int64
	Groups    []GroupSnapshot
	Processes []Process
	// GeneratedIDs are other ids the coordinator handed out (telemetry
	// client instance ids); none may be zero.
	GeneratedIDs []codec.UUID
	// Classic is what the harness knows of the classic groups' sessions
	// from the requests and answers of the run (the grace events of
	// NoGhosts' classic form); nil when the run has no classic group.
	Classic *ClassicLedger
	// LostJoinGrace judges a dynamic member under an id of a live
	// process's Lost (made for a JoinGroup v0-v3 with MemberId "" whose
	// answer never reached it: KIP-394's ghost, which every Kafka before
	// 2.2 leaves when such an answer is lost) as a member no live process
	// holds: a ghost only past its grace (a session timeout after its join
	// completed, or after a later restart), when the coordinator must have
	// removed it, and not one of its process's members
	// (OneMemberPerProcess); and it counts a process's waiting members made
	// for such JoinGroups as one, the one its latest JoinGroup will name.
	// Set for plans whose broker is from before KIP-394 only to reach what
	// its joins reach (plan.Plan.LostJoinGrace); the KIP-394 control leaves
	// it off and counts each such member a ghost at once.
	LostJoinGrace bool
}
