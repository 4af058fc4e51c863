package driver

// The observer: after each round's deliveries, the invariants checked on
// what the coordinator holds (model/rules/invariants.go), and the violations
// counted; DescribeAgrees (describecheck.go) and the invariants' canary
// (canary_invariants.go) on what it sees too.

import (
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// observer judges what the coordinator holds after every round: its
// snapshot when the target offers one (Snapshotter), else the Describes
// the observer process had answered that round.
type observer struct {
	d    *driver
	snap Snapshotter
	// observed is the array observe lists the processes in, kept from
	// round to round.
	observed []rules.Process
	// lastGroups are the groups observe judged last, and groupErrs what
	// NoDoubleClientAssignment and the epoch tracker found in them.
	lastGroups []rules.GroupSnapshot
	groupErrs  [2]error
	epochs     rules.EpochTracker
	ids        rules.MemberIDTracker
	ghosts     map[string]bool
	// genIDs are the client instance ids the coordinator made (telemetry
	// at v0).
	genIDs []codec.UUID
	// described are the describe responses delivered this round, for
	// observe when the target has no snapshot; describedAt is when the
	// first of them reached the target.
	described   []*codec.ConsumerGroupDescribeResponse
	describedAt int64
	// describedClassic are the DescribeGroups responses (classic groups)
	// delivered this round, beside described.
	describedClassic []*codec.DescribeGroupsResponse
	// canaried: the invariants' canary ran on a round's observation
	// (canary_invariants.go).
	canaried bool
	// classic is the part for classic groups (classicjudge.go).
	classic classicJudge
}

// init makes o the observer of d's run.
func (o *observer) init(d *driver) {
	*o = observer{d: d, ghosts: map[string]bool{}}
	o.snap, _ = d.target.(Snapshotter)
	o.classic.init(o)
}

// answered notes what a response the target just gave (the caller holds
// the driver's mu) shows the observer: a Describe (judged at once against
// the snapshot, DescribeAgrees), a client instance id the coordinator
// made.
func (o *observer) answered(version int16, resp codec.Message) {
	switch r := resp.(type) {
	case *codec.ConsumerGroupDescribeResponse:
		if len(o.described) == 0 && len(o.describedClassic) == 0 {
			o.describedAt = o.d.at
		}
		o.described = append(o.described, r)
		if o.classic.mixed != nil && o.snap == nil {
			o.classic.toldDescribed(r, o.d.at)
		}
		o.checkDescribe(r)
	case *codec.DescribeGroupsResponse:
		if len(o.described) == 0 && len(o.describedClassic) == 0 {
			o.describedAt = o.d.at
		}
		o.describedClassic = append(o.describedClassic, r)
		if o.classic.mixed != nil && o.snap == nil {
			o.classic.toldDescribed(r, o.d.at) // in the order the target answered (toldkinds.go)
		}
	case *codec.GetTelemetrySubscriptionsResponse:
		if version == 0 && r.ErrorCode == codec.None {
			o.genIDs = append(o.genIDs, r.ClientInstanceId)
		}
	}
}

// observe checks the invariants on what the coordinator holds now; final
// is the last observation, after quiescence.
func (o *observer) observe(final bool) {
	groups, now, ok := o.seen()
	if !ok {
		return
	}
	if o.classic.mixed != nil && o.snap != nil {
		o.classic.observeKinds(groups) // else told as each Describe was answered
	}
	// The processes' list is made again in the same array every round:
	// no check keeps it (the ghosts are kept by member id).
	o.classic.ledger.SlackMs = o.classic.slack()
	clients := o.d.procs.clients()
	obs := rules.Observation{Now: now, Groups: groups, GeneratedIDs: o.genIDs, Classic: &o.classic.ledger, LostJoinGrace: o.d.plan.LostJoinGrace}
	obs.Processes = slices.Grow(o.observed[:0], len(clients))[:len(clients)]
	for i, p := range clients {
		// Made in its place in the list (process writes all of it), not
		// copied there: a process is some twenty words, observed for
		// every client every round.
		mp := &obs.Processes[i]
		o.process(p, mp)
		// StableMemberID is KIP-1082's: a classic consumer takes the ids
		// the coordinator makes, and forgets them (A6.6).
		if p.plan.HeartbeatVersion >= rules.MemberIDRequiredVersion && p.classic == nil {
			if err := o.ids.Observe(mp); err != nil {
				o.d.violate(err)
			}
		}
	}
	o.observed = obs.Processes[:0]
	o.judge(obs, final)
	o.invariantCanary(obs, final)
}

// seen is what the coordinator holds now, and the time it held it: its
// snapshot, or the groups of the Describes delivered this round, judged
// at the time of the round's first Describe (a member a Describe listed
// was there then, whatever happened later in the round, Plan.SubRoundMs);
// false when there is nothing to judge.
func (o *observer) seen() ([]rules.GroupSnapshot, int64, bool) {
	described, classic := o.described, o.describedClassic
	o.described, o.describedClassic = nil, nil
	if o.snap != nil {
		return o.snap.Snapshot(), o.d.at, true
	}
	if len(described) == 0 && len(classic) == 0 {
		return nil, 0, false
	}
	var groups []rules.GroupSnapshot
	for _, r := range described {
		groups = append(groups, rules.SnapshotFromDescribe(r)...)
	}
	for _, r := range classic {
		groups = append(groups, rules.SnapshotFromDescribeGroups(r)...)
	}
	if o.classic.mixed != nil {
		groups = o.classic.fresh(groups) // toldkinds.go
	}
	return groups, o.describedAt, true
}

// describedEmpty reports whether the Describes delivered this round
// answered for n groups and listed no member in any (a group described
// with an error counts as not seen: it may hold members).
func (o *observer) describedEmpty(n int) bool {
	seen := 0
	for _, r := range o.described {
		for _, g := range r.Groups {
			if g.ErrorCode != codec.None && g.ErrorCode != codec.GroupIDNotFound || len(g.Members) > 0 {
				return false
			}
			seen++
		}
	}
	for _, r := range o.describedClassic {
		for _, g := range r.Groups {
			if g.ErrorCode != codec.None && g.ErrorCode != codec.GroupIDNotFound || len(g.Members) > 0 {
				return false
			}
			seen++
		}
	}
	return seen == n
}

// process writes into mp what the invariants know of client process p.
func (o *observer) process(p *proc, mp *rules.Process) {
	*mp = rules.Process{
		Name:             p.name,
		GroupID:          p.group,
		ClientInstanceID: p.c.InstanceID(),
		MemberID:         p.c.MemberID(),
		Live:             p.live,
		Left:             p.c.State() == client.Left || (p.live && !p.wants && p.c.State() != client.Joined),
		Joined:           p.live && p.c.State() == client.Joined,
	}
	mp.InFlight, mp.AllIDs = p.sortedIDs()
	if p.classic != nil {
		o.classicProcess(p, mp)
	}
	// A member may outlive its process by one session timeout (a crash, a
	// lost leave, a static member parked at -2), counted afresh from each
	// coordinator restart it lived through, plus how far the target's
	// real time ran ahead of the driver's (a broker over TCP armed the
	// timer that much later at most) and the longest stall the checking
	// process saw (a broker stalled with it fires the timer that much
	// late, unseen), but not a leave the coordinator processed: from then
	// on, a member left behind (KAFKA-17116's leave with an empty id) is a
	// ghost. Its process's connection closed with it (closeEnded), so a
	// broker that keeps it alive for a connection, open or closed, is
	// caught here.
	switch {
	case p.lastSeen < 0:
		mp.GraceUntil = 0
	case p.leftAt >= 0:
		mp.GraceUntil = p.leftAt
	default:
		mp.GraceUntil = o.d.sessionEnd(p.lastSeen) + o.d.lag() + o.d.stall()
	}
	if o.classic.mixed != nil && p.leftAt < 0 {
		// A conversion started its member's session again (mixed.go).
		mp.GraceUntil = max(mp.GraceUntil, o.classic.conversionGrace(p), o.classic.classicGrace(p))
	}
	if o.classic.mixed != nil {
		mp.OldIDsUntil = o.classic.oldIDsGrace(p)
	}
}

// judge checks the invariants on obs (QuiescentMembership too when final)
// and keeps the ghosts NoGhosts found. The rules judge each group by its
// kind (their classic forms for classic groups, Part C); the epochs of
// consumer groups and the generations of classic ones are tracked apart.
func (o *observer) judge(obs rules.Observation, final bool) {
	d := o.d
	consumer := o.consumerOnly(obs)
	if err := rules.NoGhosts(obs); err != nil {
		d.violate(err)
		o.keepGhosts(rules.Ghosts(obs))
	}
	for _, check := range []func(rules.Observation) error{rules.OneMemberPerProcess, rules.UniqueMemberIDs, rules.NoZeroUUIDs} {
		if err := check(obs); err != nil {
			d.violate(err)
		}
	}
	// The groups alone are judged again only when the snapshot moved: an
	// unchanged target gives the very list it gave last (Snapshotter), and
	// both checks give the same answer for the same groups.
	groups := obs.Groups
	if len(groups) == 0 || len(groups) != len(o.lastGroups) || &groups[0] != &o.lastGroups[0] {
		o.lastGroups = groups
		o.classic.observe(groups)
		o.groupErrs = [2]error{rules.NoDoubleClientAssignment(groups), o.epochs.Observe(consumer.Groups)}
	}
	for _, err := range o.groupErrs {
		if err != nil {
			d.violate(err)
		}
	}
	if err := o.epochs.StaticRestarts(consumer.Groups); err != nil {
		d.violate(err)
	}
	if final {
		if err := rules.QuiescentMembership(obs); err != nil {
			d.violate(err)
		}
	}
}

// keepGhosts records the distinct member ids of gs as the run's ghosts.
func (o *observer) keepGhosts(gs []rules.Ghost) {
	for _, g := range gs {
		if id := g.Member.MemberID; !o.ghosts[id] {
			o.ghosts[id] = true
			o.d.res.Ghosts = append(o.d.res.Ghosts, id)
		}
	}
}

// sortedIDs returns the process's in-flight and attributable member ids,
// each in order (Process.InFlight and AllIDs), made again only when one of
// the sets changed since the last call.
func (p *proc) sortedIDs() (inflight, all []string) {
	if p.inflightDirty {
		// The last list with ids is kept while none are in flight: the
		// next heartbeat's is most often the same.
		if p.sortedInflight = nil; len(p.inflight) > 0 {
			p.keptInflight = sortedKeys(p.inflight, p.keptInflight)
			p.sortedInflight = p.keptInflight
		}
		p.inflightDirty = false
	}
	if p.allDirty {
		p.sortedAll = sortedKeys(p.allIDs, p.sortedAll)
		p.allDirty = false
	}
	return p.sortedInflight, p.sortedAll
}

// sortedKeys is m's keys in order: nil for none, last when it lists
// exactly them (a heartbeat's id goes in flight and out again, and the
// same list serves), else a new list.
func sortedKeys[V any](m map[string]V, last []string) []string {
	if len(m) == 0 {
		return nil
	}
	if len(last) == len(m) {
		same := true
		for i, k := range last {
			if _, ok := m[k]; !ok || i > 0 && last[i-1] >= k { // in m, and in order with no repeats
				same = false
				break
			}
		}
		if same {
			return last
		}
	}
	return slices.Sorted(maps.Keys(m))
}
