package model

import (
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The invariants of docs/DESIGN.md ("Ghosts, precisely"), each a function over
// what an observer knows, returning a *Violation that says what broke.
// Their names follow what they protect. Each rule's id and its meaning in
// words are declared beside the function that checks it.

// Rule is the id of an invariant. The id is what reports and corpus files
// store, so a rule's id never changes.
type Rule string

// Rules lists every rule the checks of this file and of clientrules.go
// (the client rules judged on recorded traffic) can report.
func Rules() []Rule {
	return append([]Rule{RuleNoGhosts, RuleOneMemberPerProcess, RuleUniqueMemberIDs, RuleNoZeroUUIDs,
		RuleNoDoubleClientAssignment, RuleQuiescentMembership, RuleMonotonicEpochs, RuleStableMemberID,
		RuleClientInstanceIDInHeader, RuleClientIDOnFirstRequest, RuleStaticRestartKeepsAssignment}, clientOnlyRules()...)
}

// Meaning says in words what the rule protects ("" for an id that is not
// one of Rules).
func (r Rule) Meaning() string {
	switch r {
	case RuleNoGhosts:
		return meaningNoGhosts
	case RuleOneMemberPerProcess:
		return meaningOneMemberPerProcess
	case RuleUniqueMemberIDs:
		return meaningUniqueMemberIDs
	case RuleNoZeroUUIDs:
		return meaningNoZeroUUIDs
	case RuleNoDoubleClientAssignment:
		return meaningNoDoubleClientAssignment
	case RuleQuiescentMembership:
		return meaningQuiescentMembership
	case RuleMonotonicEpochs:
		return meaningMonotonicEpochs
	case RuleStableMemberID:
		return meaningStableMemberID
	case RuleClientInstanceIDInHeader:
		return meaningClientInstanceIDInHeader
	case RuleClientIDOnFirstRequest:
		return meaningClientIDOnFirstRequest
	case RuleStaticRestartKeepsAssignment:
		return meaningStaticRestartKeepsAssignment
	}
	return clientRuleMeaning(r)
}

// Violation is a broken invariant.
type Violation struct {
	Rule   string // the id of one of Rules
	Detail string
}

func (v *Violation) Error() string { return v.Rule + ": " + v.Detail }

// violation takes a Rule, not a string, so that every id a check reports
// is a declared rule (a test holds the calls to Rules' constants).
func violation(rule Rule, format string, args ...any) *Violation {
	return &Violation{Rule: string(rule), Detail: fmt.Sprintf(format, args...)}
}

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
	// every session afresh: Coordinator.Restart). A harness that cannot tell which requests
	// succeeded may use the last time the coordinator processed one of
	// its requests instead, a later bound that loosens the check.
	GraceUntil int64
}

// Observation is one look at the coordinator.
type Observation struct {
	Now       int64
	Groups    []GroupSnapshot
	Processes []Process
	// GeneratedIDs are other ids the coordinator handed out (telemetry
	// client instance ids); none may be zero.
	GeneratedIDs []codec.UUID
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// legitimate reports whether some process accounts for member id m of
// group g: a live process holding it as its current incarnation (or about
// to learn it), or one that abandoned it less than a session timeout ago.
func legitimate(o Observation, g, m string) bool {
	for _, p := range o.Processes {
		if p.GroupID != g {
			continue
		}
		if p.Live && !p.Left && (p.MemberID == m && m != "" || contains(p.InFlight, m)) {
			return true
		}
		if (!p.Live || p.Left) && contains(p.AllIDs, m) && o.Now < p.GraceUntil {
			return true
		}
	}
	return false
}

// RuleNoGhosts is the rule NoGhosts reports.
const (
	RuleNoGhosts    Rule = "NoGhosts"
	meaningNoGhosts      = "every member belongs to a live process that holds its id, or to one that ended less than a session timeout ago"
)

// NoGhosts: every member belongs to a live process that holds its id as its
// current incarnation, or to a process that crashed, closed or left less
// than one session timeout ago. A member the coordinator made for a join
// whose response was lost (ConsumerGroupHeartbeat v0) is a ghost at once:
// its process is alive and will never learn the id.
func NoGhosts(o Observation) error {
	if gs := Ghosts(o); len(gs) > 0 {
		g := gs[0]
		return violation(RuleNoGhosts, "group %s holds member %s (epoch %d) that no live process holds and no recently ended process accounts for, at t=%d",
			g.GroupID, g.Member.MemberID, g.Member.Epoch, o.Now)
	}
	return nil
}

// Ghost is a member NoGhosts objects to.
type Ghost struct {
	GroupID string
	Member  MemberSnapshot
}

// Ghosts lists every ghost of the observation, in group and member order.
func Ghosts(o Observation) []Ghost {
	var out []Ghost
	for _, g := range o.Groups {
		for _, m := range g.Members {
			if !legitimate(o, g.GroupID, m.MemberID) {
				out = append(out, Ghost{GroupID: g.GroupID, Member: m})
			}
		}
	}
	return out
}

// RuleOneMemberPerProcess is the rule OneMemberPerProcess reports.
const (
	RuleOneMemberPerProcess    Rule = "OneMemberPerProcess"
	meaningOneMemberPerProcess      = "each live process accounts for at most one member"
)

// OneMemberPerProcess: each live process accounts for at most one member.
func OneMemberPerProcess(o Observation) error {
	for _, p := range o.Processes {
		if !p.Live {
			continue
		}
		accounts := func(m MemberSnapshot) bool {
			return contains(p.AllIDs, m.MemberID) || (m.MemberID == p.MemberID && m.MemberID != "")
		}
		n := 0 // counted first: the list is made only for a report
		for _, g := range o.Groups {
			if g.GroupID != p.GroupID {
				continue
			}
			for _, m := range g.Members {
				if accounts(m) {
					n++
				}
			}
		}
		if n > 1 {
			var ids []string
			for _, g := range o.Groups {
				if g.GroupID != p.GroupID {
					continue
				}
				for _, m := range g.Members {
					if accounts(m) {
						ids = append(ids, m.MemberID)
					}
				}
			}
			return violation(RuleOneMemberPerProcess, "process %s accounts for %d members of group %s: %s", p.Name, len(ids), p.GroupID, strings.Join(ids, ", "))
		}
	}
	return nil
}

// RuleUniqueMemberIDs is the rule UniqueMemberIDs reports.
const (
	RuleUniqueMemberIDs    Rule = "UniqueMemberIDs"
	meaningUniqueMemberIDs      = "no two live processes hold the same member id"
)

// UniqueMemberIDs: no two live processes hold the same member id (weak
// generators have produced duplicates in the field, librdkafka#5263).
func UniqueMemberIDs(o Observation) error {
	if len(o.Processes) <= smallScan {
		// The same answer as below without a map: for each process the
		// earlier one holding its id, if any.
		for i, p := range o.Processes {
			if !p.Live || p.MemberID == "" {
				continue
			}
			for _, q := range o.Processes[:i] {
				if q.Live && q.MemberID == p.MemberID && q.GroupID == p.GroupID {
					return violation(RuleUniqueMemberIDs, "processes %s and %s both hold member id %s in group %s", q.Name, p.Name, p.MemberID, p.GroupID)
				}
			}
		}
		return nil
	}
	seen := map[groupMember]string{}
	for _, p := range o.Processes {
		if !p.Live || p.MemberID == "" {
			continue
		}
		key := groupMember{p.GroupID, p.MemberID}
		if other, ok := seen[key]; ok {
			return violation(RuleUniqueMemberIDs, "processes %s and %s both hold member id %s in group %s", other, p.Name, p.MemberID, p.GroupID)
		}
		seen[key] = p.Name
	}
	return nil
}

// smallScan is the size up to which a check compares each item with those
// before it rather than building a map: the same answer, without the
// map's allocations, for the few processes and partitions of a group an
// observation usually holds.
const smallScan = 32

// groupMember is a member id within its group, as a map key.
type groupMember struct{ group, member string }

// RuleNoZeroUUIDs is the rule NoZeroUUIDs (and CheckRequestHeader, for a header's instance id) reports.
const (
	RuleNoZeroUUIDs    Rule = "NoZeroUUIDs"
	meaningNoZeroUUIDs      = "no member id, client instance id or generated id is the zero UUID"
)

// NoZeroUUIDs: no member id in UUID form, client instance id or generated
// id is the zero UUID.
func NoZeroUUIDs(o Observation) error {
	for _, g := range o.Groups {
		for _, m := range g.Members {
			if IsZeroUUIDString(m.MemberID) {
				return violation(RuleNoZeroUUIDs, "group %s holds member id %q, the zero UUID", g.GroupID, m.MemberID)
			}
		}
	}
	for _, p := range o.Processes {
		if p.ClientInstanceID.IsZero() {
			return violation(RuleNoZeroUUIDs, "process %s has the zero UUID as client instance id", p.Name)
		}
		if IsZeroUUIDString(p.MemberID) {
			return violation(RuleNoZeroUUIDs, "process %s holds member id %q, the zero UUID", p.Name, p.MemberID)
		}
	}
	for _, u := range o.GeneratedIDs {
		if u.IsZero() {
			return violation(RuleNoZeroUUIDs, "the coordinator handed out the zero UUID")
		}
	}
	return nil
}

// IsZeroUUIDString reports whether s is the zero UUID in canonical
// (8-4-4-4-12) or Kafka (22-character base64url) form.
func IsZeroUUIDString(s string) bool {
	// The zero UUID's first character is 'A' in Kafka's form and '0' in
	// the canonical one: any other first character parses to a non-zero
	// UUID or not at all (the check runs on every member at every
	// observation).
	switch {
	case len(s) == 22 && s[0] != 'A', len(s) == 36 && s[0] != '0', len(s) != 22 && len(s) != 36:
		return false
	}
	u, err := codec.ParseUUID(s)
	return err == nil && u.IsZero()
}

// RuleNoDoubleClientAssignment is the rule NoDoubleClientAssignment reports.
const (
	RuleNoDoubleClientAssignment    Rule = "NoDoubleClientAssignment"
	meaningNoDoubleClientAssignment      = "no partition is owned by two members at once"
)

// NoDoubleClientAssignment: no partition is owned (assigned or pending
// revocation) by two members of a group at once.
func NoDoubleClientAssignment(groups []GroupSnapshot) error {
	var buf [smallScan]ownedBy
	seen := buf[:0] // the group's owned partitions so far, while few
	for _, g := range groups {
		seen = seen[:0]
		var owner map[TopicPartition]string // once there are many
		for _, m := range g.Members {
			for _, ps := range [2][]TopicPartition{m.Assigned, m.Pending} { // m.Owned(), in its order
				for _, p := range ps {
					o, ok := "", false
					if owner != nil {
						o, ok = owner[p]
					} else {
						for _, s := range seen {
							if s.p.Partition == p.Partition && s.p.Topic == p.Topic { // s.p == p, the number first
								o, ok = s.member, true
								break
							}
						}
					}
					if ok {
						return violation(RuleNoDoubleClientAssignment, "group %s: %s-%d is owned by both %s and %s", g.GroupID, p.Topic, p.Partition, o, m.MemberID)
					}
					if owner == nil && len(seen) < smallScan {
						seen = append(seen, ownedBy{p, m.MemberID})
						continue
					}
					if owner == nil {
						owner = make(map[TopicPartition]string, 2*smallScan)
						for _, s := range seen {
							owner[s.p] = s.member
						}
					}
					owner[p] = m.MemberID
				}
			}
		}
	}
	return nil
}

// ownedBy is a partition and the member that owns it.
type ownedBy struct {
	p      TopicPartition
	member string
}

// RuleQuiescentMembership is the rule QuiescentMembership reports.
const (
	RuleQuiescentMembership    Rule = "QuiescentMembership"
	meaningQuiescentMembership      = "after every client stops and a session timeout passes, a group holds exactly its live joined processes"
)

// QuiescentMembership: once every process has stopped acting and one
// session timeout has passed, each group holds exactly its live, joined
// processes.
func QuiescentMembership(o Observation) error {
	want := map[string]map[string]string{}
	for _, p := range o.Processes {
		if p.Live && p.Joined && p.MemberID != "" {
			if want[p.GroupID] == nil {
				want[p.GroupID] = map[string]string{}
			}
			want[p.GroupID][p.MemberID] = p.Name
		}
	}
	for _, g := range o.Groups {
		for _, m := range g.Members {
			if _, ok := want[g.GroupID][m.MemberID]; !ok {
				return violation(RuleQuiescentMembership, "after quiescence group %s still holds %s, which no live joined process holds", g.GroupID, m.MemberID)
			}
			delete(want[g.GroupID], m.MemberID)
		}
	}
	for _, p := range o.Processes { // in order, so the report is deterministic
		if name, ok := want[p.GroupID][p.MemberID]; ok {
			return violation(RuleQuiescentMembership, "after quiescence process %s believes it is member %s of group %s, which the group does not hold", name, p.MemberID, p.GroupID)
		}
	}
	return nil
}

// RuleMonotonicEpochs is the rule EpochTracker reports.
const (
	RuleMonotonicEpochs    Rule = "MonotonicEpochs"
	meaningMonotonicEpochs      = "member and group epochs never go backwards"
)

// EpochTracker checks, across observations, that member epochs and group
// epochs never go backwards (a member's positive epochs only grow; -2 while
// parked and 0 while rejoining are not epochs of progress).
//
// It also carries a StaticRestartTracker (StaticRestarts), the other rule
// about how the group epoch may move across observations, so that an
// observer holding one EpochTracker checks both.
type EpochTracker struct {
	member   map[groupMember]int32 // highest positive epoch
	group    map[string]int32
	restarts StaticRestartTracker
}

// StaticRestarts records groups for StaticRestartKeepsAssignment and
// reports its first violation (StaticRestartTracker.Observe). Call it on
// the same observations as Observe.
func (t *EpochTracker) StaticRestarts(groups []GroupSnapshot) error {
	return t.restarts.Observe(groups)
}

// Observe records groups and reports the first epoch that went backwards.
func (t *EpochTracker) Observe(groups []GroupSnapshot) error {
	if t.member == nil {
		t.member, t.group = map[groupMember]int32{}, map[string]int32{}
	}
	for _, g := range groups {
		last, ok := t.group[g.GroupID]
		if ok && g.Epoch < last {
			return violation(RuleMonotonicEpochs, "group %s epoch went from %d to %d", g.GroupID, last, g.Epoch)
		}
		if !ok || g.Epoch != last { // epochs mostly stay: no second lookup
			t.group[g.GroupID] = g.Epoch
		}
		for _, m := range g.Members {
			if m.Epoch <= 0 {
				continue
			}
			key := groupMember{g.GroupID, m.MemberID}
			last, ok := t.member[key]
			if ok && m.Epoch < last {
				return violation(RuleMonotonicEpochs, "member %s of group %s went from epoch %d to %d", m.MemberID, g.GroupID, last, m.Epoch)
			}
			if !ok || m.Epoch != last {
				t.member[key] = m.Epoch
			}
		}
	}
	return nil
}

// RuleStableMemberID is the rule MemberIDTracker reports.
const (
	RuleStableMemberID    Rule = "StableMemberID"
	meaningStableMemberID      = "a KIP-1082 process keeps one member id for its whole life"
)

// MemberIDTracker checks that a KIP-1082 process keeps one member id for its
// whole life, across leave, rejoin and fencing.
type MemberIDTracker struct {
	first map[string]string
}

// Observe records the process's current member id.
func (t *MemberIDTracker) Observe(p Process) error {
	if t.first == nil {
		t.first = map[string]string{}
	}
	if p.MemberID == "" {
		return nil
	}
	f, ok := t.first[p.Name]
	if ok && f != p.MemberID {
		return violation(RuleStableMemberID, "process %s changed its member id from %s to %s", p.Name, f, p.MemberID)
	}
	if !ok {
		t.first[p.Name] = p.MemberID
	}
	return nil
}

// The KIP-1313 header rules CheckRequestHeader reports.
const (
	RuleClientInstanceIDInHeader    Rule = "ClientInstanceIDInHeader"
	meaningClientInstanceIDInHeader      = "every request header v2 carries the client's own instance id in tag 0 (KIP-1313)"

	RuleClientIDOnFirstRequest    Rule = "ClientIDOnFirstRequest"
	meaningClientIDOnFirstRequest      = "ClientId rides on a connection's first request only, null after (KIP-1313)"
)

// CheckRequestHeader holds a client's request header to KIP-1313: a header
// v2 carries the client's own instance id (never zero) in tag 0; ClientId is
// the client's on the first request of a connection and null after it.
func CheckRequestHeader(h *codec.RequestHeader, instanceID codec.UUID, clientID string, firstOnConn bool) error {
	if hv, err := h.HeaderVersion(); err == nil && hv >= 2 {
		switch {
		case !h.ClientInstanceId.Valid:
			return violation(RuleClientInstanceIDInHeader, "%v v%d request %d has no client instance id in header tag 0", h.RequestApiKey, h.RequestApiVersion, h.CorrelationId)
		case h.ClientInstanceId.UUID.IsZero():
			return violation(RuleNoZeroUUIDs, "%v v%d request %d sends the zero UUID as client instance id", h.RequestApiKey, h.RequestApiVersion, h.CorrelationId)
		case h.ClientInstanceId.UUID != instanceID:
			return violation(RuleClientInstanceIDInHeader, "%v v%d request %d sends client instance id %s, not the client's %s", h.RequestApiKey, h.RequestApiVersion, h.CorrelationId, h.ClientInstanceId.UUID, instanceID)
		}
	}
	if firstOnConn && (!h.ClientId.Valid || h.ClientId.Value != clientID) {
		return violation(RuleClientIDOnFirstRequest, "the first request of a connection carries ClientId %v, want %q", h.ClientId, clientID)
	}
	if !firstOnConn && h.ClientId.Valid {
		return violation(RuleClientIDOnFirstRequest, "a later request of a connection carries ClientId %q, want null", h.ClientId.Value)
	}
	return nil
}
