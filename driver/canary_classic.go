package driver

// The invariants' canary on classic groups: the classic forms of the rules
// (docs/PROTOCOL.md Part C, model/rules/classicinvariants.go and
// classictrackers.go) branch off the consumer ones on the group's kind and
// read what the ledger knows of its sessions, so a check of a consumer
// group that still fires proves nothing of them. The plants below go into
// a classic group of the canary's own, beside the run's groups, with a
// copy of the run's ledger (its restarts, its slack) that they add to; the
// rules judged on events rather than snapshots (a generation a SyncGroup
// answered, what SyncGroup handed out, a static restart's JoinGroup) are
// fed planted events by classicEventCanary, on copies of the run's
// trackers.

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// canaryClassicGroup is the group id of the canary's classic group.
const canaryClassicGroup = "ghostcheck-canary-classic"

// classicPlants are the canary's planted violations in a classic group,
// one per branch of a rule's classic form.
func classicPlants() []invPlant {
	return []invPlant{
		{rules.RuleNoGhosts, "a classic member no live process holds, past its session", false, func(k *canaryKit, _, a *rules.Observation) {
			g, l := k.classicGroup(a), k.ledger(a)
			if a.Now < max(l.LastRestart(a.Now), 0)+1+l.SlackMs {
				// Too early for any session to have ended (the run's
				// start, a restart, the slack): KIP-394's ghost, at
				// once, stands for this one.
				plantLost(k, g, a)
				return
			}
			g.Members = append(g.Members, classicMember(k.id("classic-ghost"), 1))
		}},
		{rules.RuleNoGhosts, "a classic member whose leave the coordinator answered, still held", false, func(k *canaryKit, _, a *rules.Observation) {
			g, l := k.classicGroup(a), k.ledger(a)
			if l.LastRestart(a.Now) >= a.Now {
				// A restart this very moment may have come after the
				// leave and brought the member back.
				plantLost(k, g, a)
				return
			}
			id := k.id("classic-left")
			g.Members = append(g.Members, classicMember(id, 60000))
			l.Joined(g.GroupID, id, a.Now, 60000, false, []string{"range"})
			l.Left(g.GroupID, id, a.Now)
		}},
		{rules.RuleNoGhosts, "a dynamic classic member made for a live process that will never learn its id", false, func(k *canaryKit, _, a *rules.Observation) {
			plantLost(k, k.classicGroup(a), a)
		}},
		{rules.RuleNoGhosts, "a KIP-394 pending id past its session", false, func(k *canaryKit, _, a *rules.Observation) {
			plantPendingPast(k, k.classicGroup(a), a)
		}},
		{rules.RuleOneMemberPerProcess, "a second classic member for an answer in flight to a live process", false, func(k *canaryKit, _, a *rules.Observation) {
			g := k.classicGroup(a)
			own, extra := k.id("classic-own"), k.id("classic-second")
			g.Members = append(g.Members, classicMember(own, 1), classicMember(extra, 1))
			a.Processes = append(a.Processes, rules.Process{Name: "canary-classic-two", GroupID: g.GroupID, ClientInstanceID: k.uuid(),
				MemberID: own, Live: true, Joined: true, InFlight: []string{extra}, AllIDs: []string{own, extra}})
			if l := k.ledger(a); a.Now < l.LastRestart(a.Now)+1+l.SlackMs {
				// Within a restart's reach, a member it may have brought
				// back is excused: the unnamed branch's plant stands for
				// this one then.
				g.Members = g.Members[:len(g.Members)-2]
				a.Processes = a.Processes[:len(a.Processes)-1]
				plantUnnamed(k, g, a)
			}
		}},
		{rules.RuleOneMemberPerProcess, "two members waiting in a join phase for one live process's JoinGroup v3 with no member id", false, func(k *canaryKit, _, a *rules.Observation) {
			plantUnnamed(k, k.classicGroup(a), a)
		}},
		{rules.RuleNoDoubleClientAssignment, "a partition assigned to two members of a classic group", false, func(k *canaryKit, _, a *rules.Observation) {
			g := k.classicGroup(a)
			tp := rules.TopicPartition{Topic: "ghostcheck-canary-classic", Partition: 0}
			for _, what := range [2]string{"classic-x", "classic-y"} {
				m := classicMember(k.id(what), 60000)
				m.Classic.Waiting = rules.WaitingSync // held: no ghost
				m.Assigned = []rules.TopicPartition{tp}
				g.Members = append(g.Members, m)
			}
		}},
		{rules.RuleMonotonicEpochs, "a classic group's generation gone backwards", false, func(k *canaryKit, b, a *rules.Observation) {
			k.classicGroup(a).Classic.Generation = 3
			k.classicGroup(b).Classic.Generation = 4 // seen first: the generation then went down by one
		}},
	}
}

// plantLost adds to g a dynamic member made for a live process's
// JoinGroup whose answer the process will never get: KIP-394's ghost, at
// once. Under LostJoinGrace it is judged by its grace: its session is
// 1 ms, and while a restart or the slack may still excuse it, a pending
// id past its session stands for it.
func plantLost(k *canaryKit, g *rules.GroupSnapshot, a *rules.Observation) {
	lost, session := k.id("classic-lost"), int32(60000)
	if a.LostJoinGrace {
		l := k.ledger(a)
		if a.Now < max(l.LastRestart(a.Now), 0)+1+l.SlackMs {
			plantPendingPast(k, g, a)
			return
		}
		session = 1
	}
	g.Members = append(g.Members, classicMember(lost, session))
	a.Processes = append(a.Processes, rules.Process{Name: "canary-classic-lost", GroupID: g.GroupID, ClientInstanceID: k.uuid(),
		Live: true, Lost: []string{lost}, AllIDs: []string{lost}})
}

// plantPendingPast adds to g a KIP-394 pending id made a session timeout
// and the slack ago, which no process holds.
func plantPendingPast(k *canaryKit, g *rules.GroupSnapshot, a *rules.Observation) {
	l := k.ledger(a)
	id := k.id("classic-pending")
	g.Classic.Pending = append(g.Classic.Pending, rules.PendingSnapshot{ID: id, Deadline: a.Now})
	l.PendingMade(g.GroupID, id, a.Now-l.SlackMs-6000, 6000)
}

// plantUnnamed adds to g two dynamic members waiting in a join phase that
// no process was told of, and a live process whose JoinGroup v0-v3 with
// MemberId "" the coordinator holds: it accounts for both. Under
// LostJoinGrace such a process accounts for one of them at most, and only
// when it accounts for no other member, so the branch cannot break the
// rule and there is nothing to plant (canaryKit.none).
func plantUnnamed(k *canaryKit, g *rules.GroupSnapshot, a *rules.Observation) {
	if a.LostJoinGrace {
		k.none = true
		return
	}
	for _, what := range [2]string{"classic-unnamed", "classic-unnamed"} {
		m := classicMember(k.id(what), 60000)
		m.Classic.Waiting = rules.WaitingJoin
		g.Members = append(g.Members, m)
	}
	a.Processes = append(a.Processes, rules.Process{Name: "canary-classic-unnamed", GroupID: g.GroupID, ClientInstanceID: k.uuid(),
		Live: true, UnnamedJoins: 1})
}

// classicMember is a dynamic classic member of the canary's, with its
// session timeout.
func classicMember(id string, sessionMs int32) rules.MemberSnapshot {
	return rules.MemberSnapshot{MemberID: id, SubscribedTopicNames: []string{}, Assigned: []rules.TopicPartition{},
		Classic: &rules.ClassicMember{SessionTimeoutMs: sessionMs}}
}

// classicGroup is o's canary classic group (Stable at generation 3),
// added when o has none.
func (k *canaryKit) classicGroup(o *rules.Observation) *rules.GroupSnapshot {
	for i := range o.Groups {
		if o.Groups[i].GroupID == canaryClassicGroup {
			return &o.Groups[i]
		}
	}
	o.Groups = append(o.Groups, rules.GroupSnapshot{GroupID: canaryClassicGroup, Kind: rules.KindClassic,
		Classic: &rules.ClassicGroup{State: rules.ClassicStable, Generation: 3, ProtocolType: "consumer", Protocol: "range"}})
	return &o.Groups[len(o.Groups)-1]
}

// ledger gives o a ledger of its own, a copy of the run's (an empty one
// when the run kept none), for a planter to add to.
func (k *canaryKit) ledger(o *rules.Observation) *rules.ClassicLedger {
	if !k.ownLedger {
		if o.Classic == nil {
			o.Classic = &rules.ClassicLedger{}
		} else {
			o.Classic = o.Classic.Clone()
		}
		k.ownLedger = true
	}
	return o.Classic
}

// generationCheck is MonotonicEpochs on the generations of the classic
// groups of two observations, as the driver judges its snapshots, on a
// copy of the ledger (the tracker raises its floors).
func generationCheck(b, a rules.Observation) error {
	l := a.Classic.Clone()
	if l == nil {
		l = &rules.ClassicLedger{}
	}
	var t rules.GenerationTracker
	if err := t.Observe(l, b.Groups); err != nil {
		return err
	}
	return t.Observe(l, a.Groups)
}

// consumerGroups is o with its consumer groups only: the epoch and static
// restart trackers judge those (the classic judge the others).
func consumerGroups(o rules.Observation) []rules.GroupSnapshot {
	return slices.DeleteFunc(slices.Clone(o.Groups), func(g rules.GroupSnapshot) bool { return g.Kind == rules.KindClassic })
}

// classicEvent is one planted break of a rule the classic judge holds on
// events: feed gives a copy of the run's trackers and ledger the events of
// the break and returns what they reported.
type classicEvent struct {
	rule rules.Rule
	what string
	feed func(cj *classicTrackers) error
}

// classicTrackers are copies of what the classic judge keeps across a run.
type classicTrackers struct {
	ledger   *rules.ClassicLedger
	gens     *rules.GenerationTracker
	assigns  rules.ClassicAssignments
	restarts rules.ClassicRestartTracker
}

// canaryAssignment is an assignment of partition p of the canary's topic,
// as a leader's SyncGroup carries it.
func canaryAssignment(p int32) []byte {
	a := codec.ConsumerProtocolAssignment{AssignedPartitions: []codec.ConsumerProtocolTopicPartitions{{Topic: "ghostcheck-canary-classic", Partitions: []int32{p}}}}
	b, _ := a.AppendTo(nil, 0)
	return b
}

// staticRestartSetup is a Stable canary group at generation 3 whose
// static member (instance ghostcheck-canary-instance) synced it and holds
// partition 0, its new process's JoinGroup, and the ledger told so.
func staticRestartSetup(l *rules.ClassicLedger) (rules.GroupSnapshot, *codec.JoinGroupRequest) {
	const old, inst = "ghostcheck-canary-instance-old", "ghostcheck-canary-instance"
	l.Joined(canaryClassicGroup, old, 0, 60000, true, []string{"range"})
	l.Synced(canaryClassicGroup, old, 3)
	m := classicMember(old, 60000)
	m.InstanceID, m.Classic.Assignment = inst, canaryAssignment(0)
	before := rules.GroupSnapshot{GroupID: canaryClassicGroup, Kind: rules.KindClassic, Members: []rules.MemberSnapshot{m},
		Classic: &rules.ClassicGroup{State: rules.ClassicStable, Generation: 3, ProtocolType: "consumer", Protocol: "range", Leader: old}}
	req := &codec.JoinGroupRequest{GroupId: canaryClassicGroup, SessionTimeoutMs: 60000, RebalanceTimeoutMs: 60000, GroupInstanceId: codec.Str(inst),
		ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range"}}}
	return before, req
}

// classicEvents are the planted events, one per rule and branch judged on
// events.
func classicEvents() []classicEvent {
	const g = canaryClassicGroup
	return []classicEvent{
		{rules.RuleMonotonicEpochs, "a member answered generation 3 after generation 4, no restart between", func(t *classicTrackers) error {
			if err := t.gens.Answered(t.ledger, g, "ghostcheck-canary-member", 4); err != nil {
				return fmt.Errorf("set-up: %w", err)
			}
			return t.gens.Answered(t.ledger, g, "ghostcheck-canary-member", 3)
		}},
		{rules.RuleNoDoubleClientAssignment, "two SyncGroup answers of one generation handing out one partition", func(t *classicTrackers) error {
			if err := t.assigns.Synced(t.ledger, g, 7, "ghostcheck-canary-a", canaryAssignment(0)); err != nil {
				return fmt.Errorf("set-up: %w", err)
			}
			return t.assigns.Synced(t.ledger, g, 7, "ghostcheck-canary-b", canaryAssignment(0))
		}},
		{rules.RuleNoDoubleClientAssignment, "a leader's SyncGroup assigning one partition to two members", func(*classicTrackers) error {
			return rules.LeaderAssignments(g, 7, []codec.SyncGroupRequestAssignment{
				{MemberId: "ghostcheck-canary-a", Assignment: canaryAssignment(1)}, {MemberId: "ghostcheck-canary-b", Assignment: canaryAssignment(1)}})
		}},
		{rules.RuleStaticRestartKeepsAssignment, "a static restart into a Stable group answered at a new generation", func(t *classicTrackers) error {
			before, req := staticRestartSetup(t.ledger)
			after := before
			after.Classic = &rules.ClassicGroup{State: rules.ClassicCompletingRebalance, Generation: 4}
			resp := &codec.JoinGroupResponse{GenerationId: 4, MemberId: "ghostcheck-canary-instance-new", ProtocolName: codec.Str("range")}
			return t.restarts.Restarted(t.ledger, rules.ClassicRestart{Request: req, Response: resp, Before: before, After: after, BeforeHeldGroup: true})
		}},
		{rules.RuleStaticRestartKeepsAssignment, "a static restart into a Stable group whose SyncGroup hands over another assignment", func(t *classicTrackers) error {
			before, req := staticRestartSetup(t.ledger)
			const id = "ghostcheck-canary-instance-new"
			after := before
			after.Members = slices.Clone(before.Members)
			after.Members[0].MemberID = id
			resp := &codec.JoinGroupResponse{GenerationId: 3, MemberId: id, ProtocolName: codec.Str("range")}
			if err := t.restarts.Restarted(t.ledger, rules.ClassicRestart{Request: req, Response: resp, Before: before, After: after, BeforeHeldGroup: true}); err != nil {
				return fmt.Errorf("set-up: %w", err)
			}
			return t.restarts.Synced(g, id, 3, canaryAssignment(1))
		}},
	}
}

// classicEventCanary feeds each of events to fresh copies of the run's
// classic trackers and returns one error per event not reported as
// exactly its rule (a set-up step reporting anything counts too).
func classicEventCanary(cj *classicJudge, events []classicEvent) []string {
	var errs []string
	for _, ev := range events {
		t := &classicTrackers{ledger: cj.ledger.Clone(), gens: cj.gens.Clone()}
		t.ledger.Forget(canaryClassicGroup)
		t.gens.Forget(canaryClassicGroup)
		err := ev.feed(t)
		v, ok := err.(*rules.Violation)
		switch {
		case err == nil:
			errs = append(errs, fmt.Sprintf("invariant %s went blind: the canary fed the classic judge %s, and no check reported it", ev.rule, ev.what))
		case !ok || rules.Rule(v.Rule) != ev.rule:
			errs = append(errs, fmt.Sprintf("classic judge reported %v on the canary's planted %s (a break of %s)", err, ev.what, ev.rule))
		}
	}
	return errs
}
