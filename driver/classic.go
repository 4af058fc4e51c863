package driver

// The classic client processes (plan.ClientPlan.Classic): each a
// client.Classic, the reference classic consumer of docs/PROTOCOL.md A6.6,
// beside the client.Client that gives it its headers, ids and the
// connection's negotiation. What a classic process does on its turn, how
// it takes its answers and its timeouts, and what the invariants know of
// it.

import (
	"slices"
	"sort"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// classicClients are the processes' part for the classic client
// processes: what one does on its turn, with its planned actions, its
// answers and its timeouts.
type classicClients struct{ d *driver }

// classicProc is what a classic client process keeps besides a proc's:
// the consumer, the JoinGroup or SyncGroup on its way (join tells which),
// and the Heartbeat on its way (the consumer judges its answer by the
// generation it carried).
type classicProc struct {
	cl   *client.Classic
	gm   *outstanding
	join bool
	hb   *codec.HeartbeatRequest
	// known are the member ids the consumer named in its JoinGroups or
	// took from their answers: the ids it knows (classicGhosts).
	known map[string]bool
	// joinRounds and requestRounds are how many rounds the consumer waits
	// for a JoinGroup's answer and for any other's.
	joinRounds, requestRounds int
	// unnamed counts its JoinGroups v0-v3 with MemberId "" the target
	// holds (rules.Process.UnnamedJoins); abandoned are the member ids it
	// sent a LeaveGroup for (rules.Process.Abandoned), in order.
	unnamed   int
	abandoned []string
	// leftBehind are the correlation ids of the JoinGroup, SyncGroup or
	// Heartbeat a leave left unanswered: their answers still come on the
	// connection, and the consumer still reads them (leftBehindAnswer).
	leftBehind []int32
}

// newClassicProc makes the classic consumer of cp, for a plan whose topics
// its leader assigns.
func newClassicProc(pl *plan.Plan, cp plan.ClientPlan) (*classicProc, error) {
	parts := make(map[string]int32, len(pl.Topics))
	for _, t := range pl.Topics {
		parts[t.Name] = t.Partitions
	}
	cc := cp.Classic
	cl, err := client.NewClassic(client.ClassicConfig{GroupID: cp.Group, InstanceID: cp.InstanceID, Topics: cp.Topics, Partitions: parts,
		SessionTimeoutMs: cc.SessionTimeoutMs, RebalanceTimeoutMs: cc.RebalanceTimeoutMs, JoinGroupMaxVersion: cc.JoinGroupMaxVersion,
		Protocols: cc.Protocols, OmitEmpty: cc.OmitEmptyAssignments, RetrySync: cc.RetrySync})
	if err != nil {
		return nil, err
	}
	rounds := func(ms int64) int { return int((ms + pl.RoundMs - 1) / pl.RoundMs) }
	return &classicProc{cl: cl, joinRounds: rounds(cc.JoinTimeoutMs()), requestRounds: rounds(int64(cc.RequestTimeoutMs)),
		known: map[string]bool{}}, nil
}

// memberID is the member id the process holds now.
func (p *proc) memberID() string {
	if p.classic != nil {
		return p.classic.cl.MemberID()
	}
	return p.c.MemberID()
}

// joined reports whether the process believes it is a member.
func (p *proc) joined() bool {
	if p.classic != nil {
		return p.classic.cl.Heartbeating()
	}
	return p.c.State() == client.Joined
}

// turn is a classic process's turn after its actions: the JoinGroup
// or SyncGroup its consumer has due, once the backoff is over and nothing
// of the kind is on its way, and a heartbeat every interval while it
// heartbeats.
func (cc classicClients) turn(p *proc) {
	d, k := cc.d, p.classic
	if !p.wants || d.round < p.nextTry {
		return
	}
	if k.gm == nil {
		switch k.cl.Due() {
		case client.DueJoin:
			req, v := k.cl.JoinGroup()
			if req == nil {
				cc.d.procs.endFatal(p)
				return
			}
			k.gm, k.join = d.net.send(p, codec.JoinGroup, v, req), true
			if req.MemberId != "" {
				k.known[req.MemberId] = true
			}
		case client.DueSync:
			if req, v := k.cl.SyncGroup(); req != nil {
				k.gm, k.join = d.net.send(p, codec.SyncGroup, v, req), false
			}
		}
	}
	if k.cl.Heartbeating() && p.hb == nil && d.round-p.lastHB >= cc.d.procs.hbEvery {
		req, v := k.cl.Heartbeat()
		k.hb = req
		p.hb = d.net.send(p, codec.Heartbeat, v, req)
	}
}

// do carries out one of a classic client's planned actions, and reports
// whether it did; the ones a classic consumer does as any other (a crash,
// a reset, a rename) are left to processes.do.
func (cc classicClients) do(p *proc, a plan.Action) bool {
	d, k := cc.d, p.classic
	switch a.Kind {
	case plan.Join:
		p.wants = true
		p.nextTry = d.round
		k.cl.Start()
	case plan.Leave, plan.StaticLeave:
		p.wants = false
		for _, o := range []*outstanding{k.gm, p.hb} {
			if o != nil {
				k.leftBehind = append(k.leftBehind, o.corr)
			}
		}
		k.gm, k.hb, p.hb = nil, nil, nil
		id := k.cl.MemberID()
		if req, v := k.cl.Leave(); req != nil {
			k.abandon(id)
			p.leave = d.net.send(p, codec.LeaveGroup, v, req)
		}
	case plan.Close:
		cc.d.procs.close(p)
	case plan.Crash:
		k.cl.Crash()
		return false
	case plan.Telemetry:
		// Not while a request of its group may be held on the
		// connection: the telemetry request would wait behind it, and
		// be answered by its group's events.
		if k.gm == nil && !d.net.park.parkedOn(p) {
			return false
		}
	case plan.Resubscribe:
		k.cl.Resubscribe(a.Topics)
	case plan.MetadataChange:
		k.cl.MetadataChanged()
	default:
		return false
	}
	return true
}

// abandon notes a member id the process sends a LeaveGroup for.
func (k *classicProc) abandon(id string) {
	if id != "" && !slices.Contains(k.abandoned, id) {
		k.abandoned = slices.Insert(k.abandoned, sort.SearchStrings(k.abandoned, id), id)
	}
}

// close is processes.close's part for a classic process: its consumer's
// LeaveGroup, if it sends one (a dynamic member; a static one sends none).
func (cc classicClients) close(p *proc) {
	id := p.classic.cl.MemberID()
	if req, v := p.classic.cl.Close(); req != nil {
		p.classic.abandon(id)
		cc.d.net.send(p, codec.LeaveGroup, v, req)
	}
}

// absorb hands a classic process the answer r if it awaits it as
// its JoinGroup, SyncGroup or Heartbeat's; false if it does not.
func (cc classicClients) absorb(p *proc, r *response) bool {
	d, k := cc.d, p.classic
	if cc.leftBehindAnswer(p, r) {
		return true
	}
	var re client.Reaction
	switch {
	case k.gm != nil && k.gm.corr == r.corr:
		k.gm = nil
		switch resp := r.resp.(type) {
		case *codec.JoinGroupResponse:
			re = k.cl.OnJoinGroup(resp)
			if id := k.cl.MemberID(); id != "" {
				k.known[id] = true
			}
			if resp.ErrorCode == codec.None {
				p.lastHB = d.round // the first heartbeat one interval after the join
			}
		case *codec.SyncGroupResponse:
			re = k.cl.OnSyncGroup(resp)
		}
	case p.hb != nil && p.hb.corr == r.corr:
		p.hb = nil
		p.lastHB = d.round
		if resp, ok := r.resp.(*codec.HeartbeatResponse); ok && k.hb != nil {
			re = k.cl.OnHeartbeat(k.hb, resp)
		}
		k.hb = nil
	default:
		return false
	}
	cc.react(p, re)
	return true
}

// react does what the consumer asked after an answer or a lost one: a new
// connection now (its requests go on it from the next round, the backoff),
// or just the backoff; and a consumer that failed ends its process.
func (cc classicClients) react(p *proc, re client.Reaction) {
	d, k := cc.d, p.classic
	switch re {
	case client.Reconnect:
		k.gm, k.hb, p.hb = nil, nil, nil
		d.net.disconnect(p)
		d.net.reconnect(p)
		p.nextTry = d.round + 1
	case client.Backoff:
		p.nextTry = d.round + 1
	}
	if k.cl.State() == client.ClassicFatal {
		cc.d.procs.endFatal(p)
	}
}

// leftBehindAnswer takes the answer r to a group request a leave left
// behind (leftBehind), and reports whether it was one. A leave does not
// unsay what the coordinator answers (client.Classic.OnAbandoned): a
// KIP-394 member id is kept for the next join, and told
// FENCED_INSTANCE_ID the process ends as if it had awaited the answer
// (Java's consumer throws FencedInstanceIdException from whatever call
// meets it), joining no more under the instance.
func (cc classicClients) leftBehindAnswer(p *proc, r *response) bool {
	k := p.classic
	i := slices.Index(k.leftBehind, r.corr)
	if i < 0 {
		return false
	}
	k.leftBehind = slices.Delete(k.leftBehind, i, i+1)
	k.cl.OnAbandoned(r.resp)
	if id := k.cl.MemberID(); id != "" {
		k.known[id] = true
	}
	if k.cl.State() == client.ClassicFatal {
		cc.d.procs.endFatal(p)
	}
	return true
}

// timeouts gives up on a classic process's JoinGroup after its
// rebalance timeout and 5 s, and on its SyncGroup and Heartbeat after its
// request timeout: the consumer closes the connection and goes on on a new
// one (react).
func (cc classicClients) timeouts(p *proc) {
	d, k := cc.d, p.classic
	switch {
	case k.gm != nil && k.join && k.gm.sent <= d.round-k.joinRounds:
		k.gm = nil
		cc.react(p, k.cl.OnJoinGroupLost())
		p.nextTry = d.round
	case k.gm != nil && !k.join && k.gm.sent <= d.round-k.requestRounds:
		k.gm = nil
		cc.react(p, k.cl.OnSyncGroupLost())
		p.nextTry = d.round
	case p.hb != nil && p.hb.sent <= d.round-k.requestRounds:
		p.hb, k.hb = nil, nil
		cc.react(p, k.cl.OnHeartbeatLost())
		p.nextTry = d.round
	}
}

// connectionLost is what a classic consumer does when its
// connection closes under it (a coordinator restart): Kafka's network
// client fails the requests on their way at once, so the JoinGroup or
// SyncGroup goes again (on the new connection, as after a lost answer) and
// heartbeats go on.
func (cc classicClients) connectionLost(p *proc) {
	k := p.classic
	if k.gm != nil {
		k.gm = nil
		if k.join {
			k.cl.OnJoinGroupLost()
		} else {
			k.cl.OnSyncGroupLost()
		}
	}
	p.hb, k.hb = nil, nil
}

// classicProcess is what the invariants know of a classic process.
func (o *observer) classicProcess(p *proc, mp *rules.Process) {
	cl := p.classic.cl
	mp.MemberID = cl.MemberID()
	mp.Joined = p.live && cl.Heartbeating()
	mp.Left = p.live && !p.wants && cl.State() == client.ClassicUnjoined
	mp.Classic = true
	o.classic.process(p, mp)
}

// consumerOnly is obs without its classic groups, for the trackers of
// consumer groups' epochs and static restarts (a classic group's
// generations are the classic judge's, classicjudge.go): obs as it is
// when the plan has no classic group.
func (o *observer) consumerOnly(obs rules.Observation) rules.Observation {
	if o.d.classicGroups == nil && o.classic.ledger.Len() == 0 {
		return obs
	}
	consumer := obs
	consumer.Groups = nil
	for _, g := range obs.Groups {
		if g.Kind != rules.KindClassic {
			consumer.Groups = append(consumer.Groups, g)
		}
	}
	return consumer
}

// classicSettleMs is how much longer than a session timeout the classic
// groups of the plan may take to empty once their processes ended (0 for
// a plan without): a join phase still running ends within its rebalance
// timeout (or the first rebalance's delay), the sync phase it starts
// within another, and a member that never synced goes then; a static
// member, whose session every completion starts again, goes one session
// after the last.
func (d *driver) classicSettleMs() int64 {
	var most int64
	for _, c := range d.plan.Clients {
		if c.Classic != nil {
			most = max(most, int64(c.Classic.RebalanceTimeoutMs))
		}
	}
	if most == 0 {
		return 0
	}
	return 3*most + int64(d.plan.InitialRebalanceDelayMs)
}

// settleClassic waits out classicSettleMs, the longest classic groups
// may take to settle once every client has closed (quiesce waits until
// end), on a target on real time in steps: every group is described each
// step (the observer's Describes, judged as a round's), and the wait ends
// at the first step at which no group holds a member. The bound is a
// join phase and the session and sync timers after it at their longest
// (three rebalance timeouts, up to 30 s of real time), which a broker
// rarely needs: its static members go one session timeout after their
// last heartbeat. Once every client has closed nothing can join again, so
// a group that holds nobody stays so and the final observation would see
// what this one saw. It reports whether the groups settled, and false ok
// when the target failed. On simulated time, or with a client still
// live, it does nothing (the wait costs nothing there, and a run replays
// as before).
func (d *driver) settleClassic(end int64) (settled, ok bool) {
	settle := d.classicSettleMs()
	if _, real := d.target.(interface{ MaxLagMs() int64 }); settle == 0 || !real || d.anyClientLive() {
		return false, true
	}
	step := settleSteps * d.plan.RoundMs
	for t := max(end-settle, d.at); t < end; t += step {
		if t > d.at {
			d.now = t
			d.round++
			if !d.advance(t) {
				return false, false
			}
		}
		d.net.deliverResponses()
		d.procs.describeAll()
		d.net.deliverRequests()
		empty := d.obs.describedEmpty(len(d.plan.Groups()))
		d.obs.observe(false)
		if empty {
			return true, true
		}
	}
	return false, true
}

// settleSteps is how many rounds settleClassic waits between its
// Describes.
const settleSteps = 10

// anyClientLive reports whether some client process is still live.
func (d *driver) anyClientLive() bool {
	return slices.ContainsFunc(d.procs.clients(), func(p *proc) bool { return p.live })
}

// classicStaleHeartbeat sends ProbeClassicStaleHeartbeat's Heartbeat: for
// the member of pr.Group the observer's last DescribeGroups shows at
// pr.Pick, with its instance id, at a generation no group has.
func (pb *prober) classicStaleHeartbeat(p *proc, pr plan.Probe) {
	id, instance, ok := pb.lastDescribedClassic(pr.Group, pr.Pick)
	if !ok {
		return
	}
	v := p.version(codec.Heartbeat, 4)
	req := &codec.HeartbeatRequest{GroupId: pr.Group, GenerationId: -1000, MemberId: id}
	if v >= 3 {
		req.GroupInstanceId = instance
	}
	p.others = append(p.others, pb.d.net.send(p, codec.Heartbeat, v, req))
}

// probeMissingGroup is a group id no plan uses: the classic odd requests
// to a missing group name it.
const probeMissingGroup = "ghostcheck-probe-missing"

// classicOddRequest sends ProbeClassicOddRequest's request, by pr.Variant.
// None may change anything: a JoinGroup that a coordinator accepted would
// make a member (or a pending id) no process holds, which NoGhosts then
// reports, so each is one Kafka refuses before it looks at members.
func (pb *prober) classicOddRequest(p *proc, pr plan.Probe) {
	d := pb.d
	join := func(session int32) *codec.JoinGroupRequest {
		return &codec.JoinGroupRequest{GroupId: pr.Group, SessionTimeoutMs: session, RebalanceTimeoutMs: 10000, ProtocolType: "consumer",
			Protocols: []codec.JoinGroupRequestProtocol{{Name: "uniform", Metadata: []byte{0, 0}}}}
	}
	send := func(key codec.APIKey, v int16, req codec.Message) {
		p.others = append(p.others, d.net.send(p, key, v, req))
	}
	jv := p.version(codec.JoinGroup, 9)
	switch pr.Variant % plan.ClassicOddRequestVariants {
	case 0:
		send(codec.JoinGroup, jv, join(plan.ClassicMinSessionTimeoutMs-1))
	case 1:
		send(codec.JoinGroup, jv, join(plan.ClassicMaxSessionTimeoutMs+1))
	case 2:
		r := join(plan.ClassicMinSessionTimeoutMs)
		r.GroupId = ""
		send(codec.JoinGroup, jv, r)
	case 3:
		r := join(plan.ClassicMinSessionTimeoutMs)
		r.MemberId = "ghostcheck-probe-nobody"
		send(codec.JoinGroup, 0, r)
	case 4:
		r := join(plan.ClassicMinSessionTimeoutMs)
		r.GroupId, r.MemberId = probeMissingGroup, "ghostcheck-probe-nobody"
		send(codec.JoinGroup, jv, r)
	case 5:
		// A live member's own id, under a protocol type the group does
		// not have: refused before the member check. Not where the cap
		// may refuse it first (B8.11 removes the member it refuses).
		id, instance, ok := pb.lastDescribedClassic(pr.Group, pr.Pick)
		if !ok || d.plan.MaxGroupSize > 0 {
			return
		}
		r := join(plan.ClassicMinSessionTimeoutMs)
		r.MemberId, r.ProtocolType = id, "ghostcheck-probe"
		if jv >= 5 {
			r.GroupInstanceId = instance
		}
		send(codec.JoinGroup, jv, r)
	case 6:
		if sv := p.version(codec.SyncGroup, 5); sv == 5 {
			send(codec.SyncGroup, 5, &codec.SyncGroupRequest{GroupId: pr.Group, GenerationId: 1, MemberId: "ghostcheck-probe-nobody", ProtocolName: codec.Str("uniform")})
		}
	case 7:
		send(codec.Heartbeat, p.version(codec.Heartbeat, 4), &codec.HeartbeatRequest{GroupId: probeMissingGroup, GenerationId: 1, MemberId: "ghostcheck-probe-nobody"})
	case 8:
		send(codec.DescribeGroups, p.version(codec.DescribeGroups, 6), &codec.DescribeGroupsRequest{Groups: []string{probeMissingGroup}})
	case 9:
		send(codec.SyncGroup, p.version(codec.SyncGroup, 5), &codec.SyncGroupRequest{GroupId: probeMissingGroup, GenerationId: 1, MemberId: "ghostcheck-probe-nobody",
			ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("uniform")})
	case 10:
		send(codec.DescribeGroups, min(p.version(codec.DescribeGroups, 6), 5), &codec.DescribeGroupsRequest{Groups: []string{probeMissingGroup}})
	case 11:
		if id, ok := pb.lastPendingID(pr.Group); ok {
			// At a generation no group has: a member by now (its client
			// rejoined) is ILLEGAL_GENERATION, its session untouched.
			send(codec.Heartbeat, p.version(codec.Heartbeat, 4), &codec.HeartbeatRequest{GroupId: pr.Group, GenerationId: -1000, MemberId: id})
		}
	case 12:
		// Not where the cap may refuse it first (B8.11 drops the id it
		// refuses), nor below v5 (no instance id).
		if id, ok := pb.lastPendingID(pr.Group); ok && d.plan.MaxGroupSize == 0 && jv >= 5 {
			r := join(plan.ClassicMinSessionTimeoutMs)
			r.MemberId, r.GroupInstanceId = id, codec.Str("ghostcheck-probe-instance")
			send(codec.JoinGroup, jv, r)
		}
	case 13:
		// Refused whatever the member and the generation: by the member
		// check, the generation or the protocol (B8.8).
		// The protocol name is sent from v5 on.
		id, instance, ok := pb.lastDescribedClassic(pr.Group, pr.Pick)
		if !ok || p.version(codec.SyncGroup, 5) < 5 {
			return
		}
		send(codec.SyncGroup, 5, &codec.SyncGroupRequest{GroupId: pr.Group, GenerationId: pb.lastGeneration(pr.Group), MemberId: id,
			GroupInstanceId: instance, ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("ghostcheck-probe")})
	}
}

// lastGeneration is the generation the last JoinGroup to group answered
// NONE gave, or -1000 (none yet).
func (pb *prober) lastGeneration(group string) int32 {
	if r := pb.lastJoinAnswer(group, codec.None); r != nil {
		return r.GenerationId
	}
	return -1000
}

// lastPendingID is the member id the last JoinGroup to group answered
// MEMBER_ID_REQUIRED made: pending until its client joins with it or its
// session timeout passes.
func (pb *prober) lastPendingID(group string) (string, bool) {
	if r := pb.lastJoinAnswer(group, codec.MemberIDRequired); r != nil {
		return r.MemberId, true
	}
	return "", false
}

// lastJoinAnswer is the history's last answer with code to a JoinGroup to
// group, nil if none.
func (pb *prober) lastJoinAnswer(group string, code codec.ErrorCode) *codec.JoinGroupResponse {
	d := pb.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.hist) - 1; i >= 0; i-- {
		if q, ok := d.hist[i].Request.(*codec.JoinGroupRequest); !ok || q.GroupId != group {
			continue
		}
		if r, ok := d.hist[i].Response.(*codec.JoinGroupResponse); ok && r.ErrorCode == code {
			return r
		}
	}
	return nil
}

// crossKind sends ProbeCrossKind's request, by pr.Variant: even variants
// to a consumer group, odd ones to a classic group (the plan drew the
// group so).
func (pb *prober) crossKind(p *proc, pr plan.Probe) {
	d := pb.d
	send := func(key codec.APIKey, v int16, req codec.Message) {
		p.others = append(p.others, d.net.send(p, key, v, req))
	}
	member := d.procs.liveMember(pr.Group, pr.Pick, false)
	if member == "" {
		member = "ghostcheck-probe-nobody"
	}
	switch pr.Variant % plan.CrossKindVariants {
	case 0:
		send(codec.DescribeGroups, p.version(codec.DescribeGroups, 5), &codec.DescribeGroupsRequest{Groups: []string{pr.Group}})
	case 1:
		send(codec.ConsumerGroupDescribe, p.version(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{pr.Group}})
	case 2:
		send(codec.Heartbeat, p.version(codec.Heartbeat, 4), &codec.HeartbeatRequest{GroupId: pr.Group, GenerationId: 1, MemberId: member})
	case 3:
		send(codec.ConsumerGroupHeartbeat, p.version(codec.ConsumerGroupHeartbeat, 1), &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: "ghostcheck-probe-nobody", MemberEpoch: 5, RebalanceTimeoutMs: -1})
	case 4:
		send(codec.SyncGroup, p.version(codec.SyncGroup, 5), &codec.SyncGroupRequest{GroupId: pr.Group, GenerationId: 1, MemberId: member,
			ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("uniform")})
	}
}

// crossKindJoin sends ProbeCrossKindJoin's join, by pr.Variant: 0, a
// dynamic classic JoinGroup with MemberId "" to a consumer group (at v4+
// it leaves at most a pending id, which expires unless it rejoins); 1, a
// ConsumerGroupHeartbeat join of the prober's member to a classic group,
// with its leave right behind it, so that a group it made or replaced is
// left Empty.
func (pb *prober) crossKindJoin(p *proc, pr plan.Probe) {
	d := pb.d
	send := func(key codec.APIKey, v int16, req codec.Message) {
		p.others = append(p.others, d.net.send(p, key, v, req))
	}
	if pr.Variant%2 == 0 {
		if jv := p.version(codec.JoinGroup, 9); jv >= 4 {
			send(codec.JoinGroup, jv, &codec.JoinGroupRequest{GroupId: pr.Group, SessionTimeoutMs: plan.ClassicMinSessionTimeoutMs, RebalanceTimeoutMs: 10000,
				ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "uniform", Metadata: []byte{0, 0}}}})
		}
		return
	}
	send(codec.ConsumerGroupHeartbeat, 1, probeJoin(pr.Group))
	send(codec.ConsumerGroupHeartbeat, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: probeMemberID, MemberEpoch: -1, RebalanceTimeoutMs: -1})
}

// lastDescribedClassic is the member at pick of group as the last
// DescribeGroups of it showed it: its id and instance id.
func (pb *prober) lastDescribedClassic(group string, pick int) (string, codec.NullableString, bool) {
	d := pb.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.hist) - 1; i >= 0; i-- {
		r, ok := d.hist[i].Response.(*codec.DescribeGroupsResponse)
		if !ok || len(r.Groups) != 1 || r.Groups[0].GroupId != group {
			continue
		}
		ms := r.Groups[0].Members
		if len(ms) == 0 {
			return "", codec.Null, false
		}
		m := ms[pick%len(ms)]
		return m.MemberId, m.GroupInstanceId, true
	}
	return "", codec.Null, false
}
