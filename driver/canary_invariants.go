package driver

// The invariants' canary: the client-rule canary (canary.go) proves the
// client rules still see the breaks the harness commits on purpose; this
// one proves the same of the invariants the driver checks on what the
// coordinator holds (model/rules/invariants.go, model/rules/staticrestart.go). A
// correct coordinator never breaks them, so a run of one never shows that
// a check still fires: a check that went blind (a refactor that returns
// early, a map path that drops a key) would pass every history without a
// word. So in one history in canaryEvery, the canary plants one
// violation per invariant, and per branch of an invariant that can break
// in more than one way, in a copy of an observation the run made (the
// real groups and processes of the first round that shows members held by
// live processes and breaks nothing; the quiescence breaks in the final
// observation), judges the copy with every check the driver applies to
// such an observation, and requires that exactly the planted rule fires.
// A planted break not reported, or one that makes another rule fire, is a
// harness error, as the client-rule canary's are. Where the observation
// lacks what a planter needs (no static member to restart, a final
// observation's empty groups), the planter adds it: a synthetic group or
// process beside the real ones, so every planter runs.
//
// The checks are model's functions, the ones observe calls; the rules
// judged across two observations (epochs, static rejoins, member ids)
// run on a fresh tracker fed the observation before the plant and the one
// after. A rule the unplanted observation already breaks (a v0 run's
// ghosts) cannot be told apart from its plant: that planter is not judged
// in that history, and the rules the observation already breaks are not
// held against the other planters.

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// invCheck is one invariant check as the canary applies it: single on one
// observation, or pair across the one before the plant and the one after.
type invCheck struct {
	rule   rules.Rule
	single func(rules.Observation) error
	pair   func(before, after rules.Observation) error
	// final: applied only to a quiescent observation (QuiescentMembership).
	final bool
}

// invariantChecks are the checks observe applies, each under the rule it
// reports.
func invariantChecks() []invCheck {
	return []invCheck{
		{rule: rules.RuleNoGhosts, single: rules.NoGhosts},
		{rule: rules.RuleOneMemberPerProcess, single: rules.OneMemberPerProcess},
		{rule: rules.RuleUniqueMemberIDs, single: rules.UniqueMemberIDs},
		{rule: rules.RuleNoZeroUUIDs, single: rules.NoZeroUUIDs},
		{rule: rules.RuleNoDoubleClientAssignment, single: func(o rules.Observation) error { return rules.NoDoubleClientAssignment(o.Groups) }},
		{rule: rules.RuleMonotonicEpochs, pair: func(b, a rules.Observation) error {
			var t rules.EpochTracker
			if err := t.Observe(consumerGroups(b)); err != nil {
				return err
			}
			return t.Observe(consumerGroups(a))
		}},
		{rule: rules.RuleMonotonicEpochs, pair: generationCheck},
		{rule: rules.RuleStaticRestartKeepsAssignment, pair: func(b, a rules.Observation) error {
			var t rules.StaticRestartTracker
			if err := t.Observe(consumerGroups(b)); err != nil {
				return err
			}
			return t.Observe(consumerGroups(a))
		}},
		{rule: rules.RuleStableMemberID, pair: func(b, a rules.Observation) error {
			var t rules.MemberIDTracker
			for _, o := range [2]rules.Observation{b, a} {
				for i := range o.Processes {
					if err := t.Observe(&o.Processes[i]); err != nil {
						return err
					}
				}
			}
			return nil
		}},
		{rule: rules.RuleQuiescentMembership, single: rules.QuiescentMembership, final: true},
	}
}

// invPlant is one planted violation: plant breaks rule in after (and may
// set up before, the observation a pair check sees first); both start as
// copies of the observation.
type invPlant struct {
	rule  rules.Rule
	what  string
	final bool // judged with the quiescence check too
	plant func(k *canaryKit, before, after *rules.Observation)
}

// invariantPlants are the canary's planted violations, one per rule and
// per way a rule can break that its check tells apart (a separate branch
// or a separate path, such as the map a check builds for many items).
func invariantPlants() []invPlant {
	return append(consumerPlants(), classicPlants()...)
}

// consumerPlants are the plants in consumer groups (classicPlants those in
// classic groups).
func consumerPlants() []invPlant {
	return []invPlant{
		{rules.RuleNoGhosts, "a member no process accounts for", false, func(k *canaryKit, _, a *rules.Observation) {
			g := k.group(a)
			g.Members = append(g.Members, rules.MemberSnapshot{MemberID: k.id("ghost"), Epoch: 1, SubscribedTopicNames: []string{}})
		}},
		{rules.RuleOneMemberPerProcess, "a second member for a live process's response in flight", false, func(k *canaryKit, _, a *rules.Observation) {
			p, g := k.liveMember(a)
			extra := k.id("second")
			p.InFlight = append(slices.Clip(p.InFlight), extra)
			p.AllIDs = append(slices.Clip(p.AllIDs), extra)
			g.Members = append(g.Members, rules.MemberSnapshot{MemberID: extra, Epoch: 1, SubscribedTopicNames: []string{}})
		}},
		{rules.RuleUniqueMemberIDs, "a second live process holding a live process's member id", false, func(k *canaryKit, _, a *rules.Observation) {
			p, _ := k.liveMember(a)
			twin := *p
			twin.Name, twin.ClientInstanceID = p.Name+"-twin", k.uuid()
			a.Processes = append(a.Processes, twin)
		}},
		{rules.RuleUniqueMemberIDs, "two of more than 32 live processes holding one member id", false, func(k *canaryKit, _, a *rules.Observation) {
			p, _ := k.liveMember(a)
			for i := 0; len(a.Processes) <= 32; i++ {
				a.Processes = append(a.Processes, rules.Process{Name: fmt.Sprintf("canary-idle-%d", i), GroupID: p.GroupID,
					ClientInstanceID: k.uuid(), Live: true, Left: true})
			}
			twin := *p
			twin.Name, twin.ClientInstanceID = p.Name+"-twin", k.uuid()
			a.Processes = append(a.Processes, twin)
		}},
		{rules.RuleNoZeroUUIDs, "a member id that is the zero UUID", false, func(k *canaryKit, _, a *rules.Observation) {
			zero := codec.UUID{}.String()
			g := k.group(a)
			g.Members = append(g.Members, rules.MemberSnapshot{MemberID: zero, Epoch: 1, SubscribedTopicNames: []string{}})
			a.Processes = append(a.Processes, rules.Process{Name: "canary-zero", GroupID: g.GroupID, ClientInstanceID: k.uuid(),
				MemberID: zero, Live: true, Joined: true})
		}},
		{rules.RuleNoZeroUUIDs, "a process's client instance id that is the zero UUID", false, func(k *canaryKit, _, a *rules.Observation) {
			p, _ := k.liveMember(a)
			p.ClientInstanceID = codec.UUID{}
		}},
		{rules.RuleNoZeroUUIDs, "a process holding the zero UUID as member id", false, func(k *canaryKit, _, a *rules.Observation) {
			a.Processes = append(a.Processes, rules.Process{Name: "canary-zero", GroupID: k.group(a).GroupID, ClientInstanceID: k.uuid(),
				MemberID: codec.UUID{}.String(), Live: true})
		}},
		{rules.RuleNoZeroUUIDs, "a generated id that is the zero UUID", false, func(_ *canaryKit, _, a *rules.Observation) {
			a.GeneratedIDs = append(slices.Clip(a.GeneratedIDs), codec.UUID{})
		}},
		{rules.RuleNoDoubleClientAssignment, "a partition owned by two members", false, func(k *canaryKit, _, a *rules.Observation) {
			g, x, y := k.twoMembers(a)
			tp := k.ownedBy(g, x)
			g.Members[y].Pending = append(slices.Clip(g.Members[y].Pending), tp)
		}},
		{rules.RuleNoDoubleClientAssignment, "a partition owned by two members of a group owning more than 32", false, func(k *canaryKit, _, a *rules.Observation) {
			g, x, y := k.twoMembers(a)
			m := &g.Members[x]
			m.Assigned = slices.Clip(m.Assigned)
			for i := int32(0); len(m.Assigned) <= 32; i++ {
				m.Assigned = append(m.Assigned, rules.TopicPartition{Topic: "ghostcheck-canary-many", Partition: i})
			}
			g.Members[y].Assigned = append(slices.Clip(g.Members[y].Assigned), m.Assigned[len(m.Assigned)-1])
		}},
		{rules.RuleMonotonicEpochs, "a group epoch gone backwards", false, func(k *canaryKit, b, a *rules.Observation) {
			g := k.group(a)
			k.sameGroup(b, g.GroupID).Epoch = g.Epoch + 1 // seen first: the epoch then went down by one
		}},
		{rules.RuleMonotonicEpochs, "a member epoch gone backwards", false, func(k *canaryKit, b, a *rules.Observation) {
			p, g := k.liveMember(a)
			m := *memberIn(g, p.MemberID)
			gb := k.sameGroup(b, g.GroupID)
			if memberIn(gb, m.MemberID) == nil {
				gb.Members = append(gb.Members, m)
			}
			memberIn(gb, m.MemberID).Epoch = m.Epoch + 1 // seen first: the member's epoch then went down by one
		}},
		{rules.RuleStaticRestartKeepsAssignment, "a static restart that moved the group epoch by one", false, func(k *canaryKit, b, a *rules.Observation) {
			k.staticRestart(b, a)
			k.sameGroup(a, k.static).Epoch++
		}},
		{rules.RuleStaticRestartKeepsAssignment, "a static restart that took over with another target", false, func(k *canaryKit, b, a *rules.Observation) {
			g := k.staticRestart(b, a)
			m := &g.Members[len(g.Members)-1] // the new incarnation
			m.Target = []rules.TopicPartition{{Topic: "ghostcheck-canary-other", Partition: 0}}
		}},
		{rules.RuleStaticRestartKeepsAssignment, "a static restart that changed another member's target", false, func(k *canaryKit, b, a *rules.Observation) {
			g := k.staticRestart(b, a)
			m := &g.Members[0] // the other member (staticRestart's group holds it first)
			m.Target = append(slices.Clip(m.Target), rules.TopicPartition{Topic: "ghostcheck-canary-other", Partition: 0})
		}},
		{rules.RuleStableMemberID, "a process whose member id changed", false, func(k *canaryKit, b, a *rules.Observation) {
			p, g := k.liveMember(a)
			b.Processes = slices.Clone(a.Processes) // seen first: the process under its old id
			id := k.id("renamed")
			memberIn(g, p.MemberID).MemberID, p.MemberID = id, id
		}},
		{rules.RuleQuiescentMembership, "after quiescence, a live process still joining holds a member", true, func(k *canaryKit, _, a *rules.Observation) {
			p, _ := k.liveMember(a)
			p.Joined = false
		}},
		{rules.RuleQuiescentMembership, "after quiescence, a joined process's member is gone", true, func(k *canaryKit, _, a *rules.Observation) {
			p, g := k.liveMember(a)
			g.Members = slices.DeleteFunc(g.Members, func(m rules.MemberSnapshot) bool { return m.MemberID == p.MemberID })
		}},
	}
}

// canaryKit finds in a copy of the observation what a planter needs, and
// adds it when the observation has none, under ids no coordinator makes.
type canaryKit struct {
	n      int
	static string // the group staticRestart planted in
	// ownLedger: the observation holds the kit's copy of the classic
	// ledger (ledger).
	ownLedger bool
	// none: the plant found nothing it could plant that its rule must
	// report in this observation (plantUnnamed under LostJoinGrace); the
	// canary passes it by.
	none bool
}

func (k *canaryKit) id(what string) string {
	k.n++
	return fmt.Sprintf("ghostcheck-canary-%s-%d", what, k.n)
}

// uuid is a non-zero UUID of the kit's own.
func (k *canaryKit) uuid() codec.UUID {
	k.n++
	return codec.UUID{0: 0xca, 1: 0x4a, 14: byte(k.n >> 8), 15: byte(k.n)}
}

// group is o's first consumer group, added (empty) when o has none (the
// classic plants have a group of their own, classicGroup).
func (k *canaryKit) group(o *rules.Observation) *rules.GroupSnapshot {
	for i := range o.Groups {
		if o.Groups[i].Kind != rules.KindClassic {
			return &o.Groups[i]
		}
	}
	o.Groups = append(o.Groups, rules.GroupSnapshot{GroupID: "ghostcheck-canary", Epoch: 1})
	return &o.Groups[len(o.Groups)-1]
}

// sameGroup is o's group id, added (empty) when o has none.
func (k *canaryKit) sameGroup(o *rules.Observation, id string) *rules.GroupSnapshot {
	for i := range o.Groups {
		if o.Groups[i].GroupID == id {
			return &o.Groups[i]
		}
	}
	o.Groups = append(o.Groups, rules.GroupSnapshot{GroupID: id, Epoch: 1})
	return &o.Groups[len(o.Groups)-1]
}

// liveMember is a live, joined process whose member its group holds at a
// positive epoch, and that group; a synthetic one is added when o has
// none.
func (k *canaryKit) liveMember(o *rules.Observation) (*rules.Process, *rules.GroupSnapshot) {
	if i, j, ok := findLiveMember(*o); ok {
		return &o.Processes[i], &o.Groups[j]
	}
	g := k.group(o)
	id := k.id("member")
	g.Members = append(g.Members, rules.MemberSnapshot{MemberID: id, Epoch: g.Epoch, SubscribedTopicNames: []string{}})
	o.Processes = append(o.Processes, rules.Process{Name: "canary-process", GroupID: g.GroupID, ClientInstanceID: k.uuid(),
		MemberID: id, Live: true, Joined: true, AllIDs: []string{id}})
	return &o.Processes[len(o.Processes)-1], k.sameGroup(o, g.GroupID)
}

// findLiveMember is the index of a live, joined process whose member its
// group holds at a positive epoch, and of that group.
func findLiveMember(o rules.Observation) (int, int, bool) {
	for i, p := range o.Processes {
		if !p.Live || p.Left || !p.Joined || p.MemberID == "" {
			continue
		}
		for j, g := range o.Groups {
			if g.GroupID != p.GroupID {
				continue
			}
			for _, m := range g.Members {
				if m.MemberID == p.MemberID && m.Epoch > 0 {
					return i, j, true
				}
			}
		}
	}
	return 0, 0, false
}

// memberIn is g's member id, nil when g does not hold it.
func memberIn(g *rules.GroupSnapshot, id string) *rules.MemberSnapshot {
	for i := range g.Members {
		if g.Members[i].MemberID == id {
			return &g.Members[i]
		}
	}
	return nil
}

// twoMembers is a group with two members held by live joined processes,
// and their indexes; synthetic members are added as needed.
func (k *canaryKit) twoMembers(o *rules.Observation) (*rules.GroupSnapshot, int, int) {
	_, g := k.liveMember(o)
	if len(g.Members) < 2 {
		id := k.id("member")
		g.Members = append(g.Members, rules.MemberSnapshot{MemberID: id, Epoch: g.Epoch, SubscribedTopicNames: []string{}})
		o.Processes = append(o.Processes, rules.Process{Name: "canary-process-2", GroupID: g.GroupID, ClientInstanceID: k.uuid(),
			MemberID: id, Live: true, Joined: true, AllIDs: []string{id}})
	}
	return g, 0, 1
}

// ownedBy is a partition member x of g owns; one is given it when it owns
// none.
func (k *canaryKit) ownedBy(g *rules.GroupSnapshot, x int) rules.TopicPartition {
	if owned := g.Members[x].Owned(); len(owned) > 0 {
		return owned[0]
	}
	tp := rules.TopicPartition{Topic: "ghostcheck-canary-owned", Partition: 0}
	g.Members[x].Assigned = append(slices.Clip(g.Members[x].Assigned), tp)
	return tp
}

// staticRestart sets up a static restart within the session: before, a
// group of its own holds a dynamic member and a static one parked at -2;
// after, a new process under a new member id holds the instance, with its
// target, and nothing else changed. It returns the group after.
func (k *canaryKit) staticRestart(b, a *rules.Observation) *rules.GroupSnapshot {
	k.static = "ghostcheck-canary-static"
	target := []rules.TopicPartition{{Topic: "ghostcheck-canary-static", Partition: 0}}
	other := rules.MemberSnapshot{MemberID: k.id("dynamic"), Epoch: 3, Target: []rules.TopicPartition{{Topic: "ghostcheck-canary-static", Partition: 1}},
		SubscribedTopicNames: []string{"ghostcheck-canary-static"}}
	parked := rules.MemberSnapshot{MemberID: k.id("parked"), InstanceID: "ghostcheck-canary-instance", Epoch: rules.StaticLeaveEpoch,
		Target: target, SubscribedTopicNames: []string{"ghostcheck-canary-static"}}
	resumed := parked
	resumed.MemberID, resumed.Epoch = k.id("restarted"), 3
	b.Groups = append(b.Groups, rules.GroupSnapshot{GroupID: k.static, Epoch: 3, Members: []rules.MemberSnapshot{other, parked}})
	a.Groups = append(a.Groups, rules.GroupSnapshot{GroupID: k.static, Epoch: 3, Members: []rules.MemberSnapshot{other, resumed}})
	for _, m := range [2]rules.MemberSnapshot{other, resumed} {
		a.Processes = append(a.Processes, rules.Process{Name: "canary-" + m.MemberID, GroupID: k.static, ClientInstanceID: k.uuid(),
			MemberID: m.MemberID, Live: true, Joined: true, AllIDs: []string{m.MemberID}})
	}
	b.Processes = a.Processes
	return &a.Groups[len(a.Groups)-1]
}

// cloneObservation copies o deeply enough for a planter: the group,
// member and process lists; a planter that changes a list inside a member
// or a process (partitions, ids) copies it first (slices.Clip).
func cloneObservation(o rules.Observation) rules.Observation {
	c := o
	c.Groups = slices.Clone(o.Groups)
	for i := range c.Groups {
		c.Groups[i].Members = slices.Clone(c.Groups[i].Members)
	}
	c.Processes = slices.Clone(o.Processes)
	c.GeneratedIDs = slices.Clip(o.GeneratedIDs)
	return c
}

// firedRules judges before and after with checks (the final ones only
// when final) and returns the rules that fired, in checks' order, and
// what each said; a check reporting another rule than its own is listed
// under the one it named.
func firedRules(checks []invCheck, before, after rules.Observation, final bool) []*rules.Violation {
	var out []*rules.Violation
	for _, c := range checks {
		if c.final && !final {
			continue
		}
		var err error
		if c.pair != nil {
			err = c.pair(before, after)
		} else {
			err = c.single(after)
		}
		if err == nil {
			continue
		}
		if v := asViolation(c.rule, err); !firedRule(out, rules.Rule(v.Rule)) {
			out = append(out, v)
		}
	}
	return out
}

// asViolation is err as the violation it names, or of rule when it names
// none.
func asViolation(rule rules.Rule, err error) *rules.Violation {
	if v, ok := err.(*rules.Violation); ok {
		return v
	}
	return &rules.Violation{Rule: string(rule), Detail: err.Error()}
}

// firedRule reports whether vs holds a violation of rule.
func firedRule(vs []*rules.Violation, rule rules.Rule) bool {
	return slices.ContainsFunc(vs, func(v *rules.Violation) bool { return rules.Rule(v.Rule) == rule })
}

// invariantCanary plants each of plants in a copy of o and judges it by
// checks; it returns one error per plant the checks did not see exactly.
// The quiescence check judges only the plants marked final (the driver
// passes those only with the final observation, after quiescence).
func invariantCanary(o rules.Observation, checks []invCheck, plants []invPlant) []string {
	already := firedRules(checks, o, o, true)
	var errs []string
	for _, pl := range plants {
		if firedRule(already, pl.rule) {
			continue // the observation breaks it already: the plant cannot be told apart
		}
		k := &canaryKit{}
		before, after := cloneObservation(o), cloneObservation(o)
		pl.plant(k, &before, &after)
		if k.none {
			continue
		}
		got := firedRules(checks, before, after, pl.final)
		if !firedRule(got, pl.rule) {
			errs = append(errs, fmt.Sprintf("invariant %s went blind: the canary planted %s in a copy of an observation of the run, and no check reported it", pl.rule, pl.what))
		}
		for _, v := range got {
			if r := rules.Rule(v.Rule); r != pl.rule && !firedRule(already, r) {
				errs = append(errs, fmt.Sprintf("invariant %s fired on the canary's planted %s (a break of %s only): %v", r, pl.what, pl.rule, v))
			}
		}
	}
	return errs
}

// canaryEvery spaces the canaries out (this one, and both parts of the
// client rules' canary: the live one on the admin's, prober's and
// observer's traffic, canary.go, and the synthetic one, canary_clients.go):
// they run in the histories whose plan seed is 1 modulo canaryEvery (seed
// 1, the first of every run, then one in 64; driver.canaries), with the long way
// of DescribeAgrees (describecheck.go). Their thirty-odd plants, each
// judged by every check with fresh trackers, cost about a third of a default
// history's CPU (BenchmarkCanary); one history in 64 keeps that under one
// percent of a run's, and still runs them hundreds of times in a default
// run.
const canaryEvery = 64

// invariantCanary runs the canary in one history in canaryEvery and
// reports its errors as harness errors. The plants of the per-round
// checks go into the first round's observation that shows a group with
// two members, one held by a live joined process, and breaks nothing (a
// history's final observation mostly holds empty groups: every planter
// would add its own material); the quiescence plants, and all of them in
// a history that never showed such a round, go into the final one.
func (ob *observer) invariantCanary(o rules.Observation, final bool) {
	d := ob.d
	if !d.canaries || ob.canaried && !final {
		return
	}
	checks, plants := invariantChecks(), invariantPlants()
	switch {
	case final:
		if ob.canaried {
			plants = roundPlants(plants, true)
		}
		for _, e := range headerCanary(d.clients.reqs, rules.CheckRequestHeader) {
			d.harness("%s", e)
		}
		for _, e := range classicEventCanary(&ob.classic, classicEvents()) {
			d.harness("%s", e)
		}
	case rich(o) && len(firedRules(checks, o, o, false)) == 0:
		plants = roundPlants(plants, false)
		ob.canaried = true
	default:
		return
	}
	for _, e := range invariantCanary(o, checks, plants) {
		d.harness("%s", e)
	}
}

// roundPlants are the plants of plants judged on a round's observation
// (final false) or only on the final one (final true).
func roundPlants(plants []invPlant, final bool) []invPlant {
	return slices.DeleteFunc(plants, func(p invPlant) bool { return p.final != final })
}

// rich reports whether o has what the canary's planters look for: a group
// with two members, one of them held by a live joined process.
func rich(o rules.Observation) bool {
	_, j, ok := findLiveMember(o)
	return ok && len(o.Groups[j].Members) >= 2
}

// headerCheck is rules.CheckRequestHeader's signature: network.go holds
// every request a plan client sends to it.
type headerCheck func(h *codec.RequestHeader, instanceID codec.UUID, clientID string, firstOnConn bool) error

// headerPlant is a header rule broken on purpose in a copy of a header a
// client sent.
type headerPlant struct {
	rule  rules.Rule
	what  string
	first bool // the header is its connection's first request
	plant func(h *codec.RequestHeader)
}

// headerPlants break each KIP-1313 header rule CheckRequestHeader holds,
// one way per branch.
func headerPlants() []headerPlant {
	return []headerPlant{
		{rules.RuleClientInstanceIDInHeader, "a header v2 without tag 0", true, func(h *codec.RequestHeader) { h.ClientInstanceId = codec.NullableUUID{} }},
		{rules.RuleNoZeroUUIDs, "the zero UUID in tag 0", true, func(h *codec.RequestHeader) { h.ClientInstanceId = codec.SomeUUID(codec.UUID{}) }},
		{rules.RuleClientInstanceIDInHeader, "another client's instance id in tag 0", true, func(h *codec.RequestHeader) {
			h.ClientInstanceId.UUID[15] ^= 0xff
		}},
		{rules.RuleClientIDOnFirstRequest, "a connection's first request without ClientId", true, func(h *codec.RequestHeader) { h.ClientId = codec.NullableString{} }},
		{rules.RuleClientIDOnFirstRequest, "ClientId repeated on a later request", false, func(*codec.RequestHeader) {}},
	}
}

// headerCanary plants each of headerPlants in a copy of the first header
// v2 a plan client sent as its connection's first request (one of its own
// when none did), judges it by check, and returns one error per plant not
// reported as exactly its rule. A base header check already refuses is
// the client's own violation, reported by the run: the canary then stays
// silent.
func headerCanary(reqs []rules.ClientRequest, check headerCheck) []string {
	base := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: 1,
		ClientId: codec.Str("ghostcheck-canary"), ClientInstanceId: codec.SomeUUID(codec.UUID{0: 0xca, 1: 0x4a, 15: 1})}
	for _, r := range reqs {
		if h := r.Header; r.Seq == 0 && r.HeaderVersion >= 2 && h.ClientId.Valid && h.ClientInstanceId.Valid {
			base = h
			break
		}
	}
	inst, clientID := base.ClientInstanceId.UUID, base.ClientId.Value
	if check(&base, inst, clientID, true) != nil {
		return nil
	}
	var errs []string
	for _, pl := range headerPlants() {
		h := base
		pl.plant(&h)
		err := check(&h, inst, clientID, pl.first)
		v, ok := err.(*rules.Violation)
		switch {
		case err == nil:
			errs = append(errs, fmt.Sprintf("header rule %s went blind: the canary planted %s in a copy of %v v%d's header, and the check passed it", pl.rule, pl.what, base.RequestApiKey, base.RequestApiVersion))
		case !ok || rules.Rule(v.Rule) != pl.rule:
			errs = append(errs, fmt.Sprintf("header check reported %v on the canary's planted %s (a break of %s)", err, pl.what, pl.rule))
		}
	}
	return errs
}
