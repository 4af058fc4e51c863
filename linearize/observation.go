package linearize

// Observation: after each round's deliveries, the invariants checked on what
// the coordinator holds (model/invariants.go), and the violations counted.

import (
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// violate records a broken invariant: each rule at its first observation
// (Result.Violations), and how often (Result.ViolationCounts). A check
// failing without naming its rule is the harness's error.
func (d *driver) violate(err error) {
	v, ok := err.(*rules.Violation)
	if !ok {
		d.harness("an invariant check failed without naming its rule: %v", err)
		return
	}
	if d.res.ViolationCounts[v.Rule] == 0 {
		d.res.Violations = append(d.res.Violations, RoundViolation{Round: d.round, At: d.at, Rule: v.Rule, What: v.Detail})
	}
	d.res.ViolationCounts[v.Rule]++
}

// lag is how far the target's real time has run ahead of the driver's
// logical time (TCPTarget.MaxLagMs); 0 for a target on logical time.
func (d *driver) lag() int64 {
	if l, ok := d.target.(interface{ MaxLagMs() int64 }); ok {
		return l.MaxLagMs()
	}
	return 0
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

// stall is the longest the checking process was kept from running
// (TCPTarget.MaxStallMs); 0 for a target on logical time.
func (d *driver) stall() int64 {
	if s, ok := d.target.(interface{ MaxStallMs() int64 }); ok {
		return s.MaxStallMs()
	}
	return 0
}

// observe checks the invariants on what the coordinator holds now: its
// snapshot when the target offers one, else the describes delivered this
// round.
func (d *driver) observe(final bool) {
	var groups []rules.GroupSnapshot
	described := d.described
	d.described = nil
	if d.snap != nil {
		groups = d.snap.Snapshot()
	} else {
		if len(described) == 0 {
			return
		}
		for _, r := range described {
			groups = append(groups, rules.SnapshotFromDescribe(r)...)
		}
	}
	// Seen through Describe, the groups are judged at the time of the
	// round's first Describe: a member a Describe listed was there then,
	// whatever happened later in the round (Plan.SubRoundMs).
	now := d.at
	if d.snap == nil {
		now = d.describedAt
	}
	// The processes' list is made again in the same array every round:
	// no check keeps it (the ghosts are kept by member id).
	o := rules.Observation{Now: now, Groups: groups, GeneratedIDs: d.genIDs, Processes: d.observed[:0]}
	for _, p := range d.procs[:len(d.plan.Clients)] {
		mp := rules.Process{
			Name:             p.name,
			GroupID:          p.group,
			ClientInstanceID: p.c.InstanceID(),
			MemberID:         p.c.MemberID(),
			Live:             p.live,
			Left:             p.c.State() == client.Left || (p.live && !p.wants && p.c.State() != client.Joined),
			Joined:           p.live && p.c.State() == client.Joined,
		}
		mp.InFlight, mp.AllIDs = p.sortedIDs()
		// A member may outlive its process by one session timeout (a
		// crash, a lost leave, a static member parked at -2), counted
		// afresh from each coordinator restart it lived through, plus how
		// far the target's real time ran ahead of the driver's (a broker
		// over TCP armed the timer that much later at most) and the
		// longest stall the checking process saw (a broker stalled with
		// it fires the timer that much late, unseen), but not a
		// leave the coordinator processed: from then on, a member left
		// behind (KAFKA-17116's leave with an empty id) is a ghost. Its
		// process's connection closed with it (closeEnded), so a broker
		// that keeps it alive for a connection, open or closed, is caught
		// here.
		switch {
		case p.lastSeen < 0:
			mp.GraceUntil = 0
		case p.leftAt >= 0:
			mp.GraceUntil = p.leftAt
		default:
			mp.GraceUntil = d.sessionEnd(p.lastSeen) + d.lag() + d.stall()
		}
		o.Processes = append(o.Processes, mp)
		if p.plan.HeartbeatVersion >= rules.MemberIDRequiredVersion {
			if err := d.ids.Observe(mp); err != nil {
				d.violate(err)
			}
		}
	}
	d.observed = o.Processes[:0]
	if err := rules.NoGhosts(o); err != nil {
		d.violate(err)
		for _, g := range rules.Ghosts(o) {
			if id := g.Member.MemberID; !d.ghosts[id] {
				d.ghosts[id] = true
				d.res.Ghosts = append(d.res.Ghosts, id)
			}
		}
	}
	for _, check := range []func(rules.Observation) error{rules.OneMemberPerProcess, rules.UniqueMemberIDs, rules.NoZeroUUIDs} {
		if err := check(o); err != nil {
			d.violate(err)
		}
	}
	// The groups alone are judged again only when the snapshot moved: an
	// unchanged target gives the very list it gave last (Snapshotter), and
	// both checks give the same answer for the same groups.
	if len(groups) == 0 || len(groups) != len(d.lastGroups) || &groups[0] != &d.lastGroups[0] {
		d.lastGroups = groups
		d.groupErrs = [2]error{rules.NoDoubleClientAssignment(groups), d.epochs.Observe(groups)}
	}
	for _, err := range d.groupErrs {
		if err != nil {
			d.violate(err)
		}
	}
	if err := d.epochs.StaticRestarts(groups); err != nil {
		d.violate(err)
	}
	if final {
		if err := rules.QuiescentMembership(o); err != nil {
			d.violate(err)
		}
	}
	d.checkInvariantCanary(o, final) // canary_invariants.go
}
