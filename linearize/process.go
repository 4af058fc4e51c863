package linearize

// The processes of a run: the plan's clients (each a client.Client), the
// admin, the prober (probe.go) and the observer, and what each does on its
// turn of a round.

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

type proc struct {
	idx   int
	name  string
	group string
	plan  ClientPlan
	role  string // "client", "admin", "observer"
	c     *client.Client
	// faults are the plan's faults of this client's requests, in request
	// order (of two on one request, the later in the plan counts); the
	// ones before nextFault are behind it.
	faults    []Fault
	nextFault int

	conn   *client.Conn
	connID uint64 // the connection's handle (request.handle)
	// wire is the connection's id as the target sees it; wireFreed once
	// it went back to the driver's pool (Plan.ReuseConnIDs).
	wire      uint64
	wireFreed bool
	host      string
	versions  bool // an ApiVersions response has arrived
	// refused: the target refused a request (a broker closes the
	// connection then): the process reconnects at its next turn.
	refused bool
	renames int

	live     bool
	wants    bool
	hb       *outstanding
	leave    *outstanding
	others   []*outstanding
	lastHB   int
	nextTry  int
	nreq     int
	nextAct  int
	subID    int32
	hasSub   bool
	allIDs   map[string]bool
	inflight map[string]int
	// sortedAll and sortedInflight are allIDs' and inflight's keys in
	// order, as each observation hands them to the invariants; allDirty
	// and inflightDirty say one must be made again (its map gained or
	// lost a key). They are made anew, never changed in place, since an
	// observation may keep them.
	sortedAll, sortedInflight []string
	keptInflight              []string // the last non-empty sortedInflight
	allDirty, inflightDirty   bool
	lastSeen                  int64 // coordinator time of the last delivered request; -1 none
	leftAt                    int64 // coordinator time its last leave (epoch -1) was processed; -1 none
	ended                     int   // round the process ended
	// closing: the process ended (crashed or closed) and its connection
	// closes once what it sent on it has been delivered (closeEnded).
	closing bool
}

// seedReader is an io.Reader of deterministic bytes for a client's UUIDs.
type seedReader struct{ r *rand.Rand }

func (s seedReader) Read(b []byte) (int, error) {
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], s.r.Uint64())
		copy(b[i:], w[:])
	}
	return len(b), nil
}

func (d *driver) newProc(idx int, name, group, role string, cp ClientPlan) (*proc, error) {
	c, err := client.New(client.Config{
		ClientID:               "ghostcheck-" + name,
		GroupID:                group,
		InstanceID:             cp.InstanceID,
		Topics:                 cp.Topics,
		HeartbeatVersion:       cp.HeartbeatVersion,
		RebalanceTimeoutMs:     d.plan.clientRebalanceTimeoutMs(),
		ClientIDEveryRequest:   cp.ClientIDEvery,
		NullOwnedWhenUnchanged: cp.NullOwned,
		RackID:                 cp.RackID,
		ServerAssignor:         cp.ServerAssignor,
		Rand:                   seedReader{rand.New(rand.NewPCG(cp.Seed, uint64(idx)))},
	})
	if err != nil {
		return nil, err
	}
	p := &proc{idx: idx, name: name, group: group, plan: cp, role: role, c: c, live: true,
		allIDs: map[string]bool{}, inflight: map[string]int{}, allDirty: true, inflightDirty: true, lastSeen: -1, leftAt: -1, lastHB: -1 << 30,
		host: fmt.Sprintf("/10.0.%d.%d", idx/250, idx%250+1)}
	if id := c.MemberID(); id != "" {
		p.allIDs[id] = true
	}
	d.openConn(p)
	return p, nil
}

// act runs one process's turn: its scheduled actions, then whatever
// request its state calls for.
func (d *driver) act(p *proc) {
	if !p.live {
		return
	}
	if p.refused {
		p.refused = false
		d.disconnect(p)
		d.reconnect(p)
		return
	}
	if !p.versions {
		if len(p.others) == 0 {
			req, v := p.c.ApiVersionsRequest()
			p.others = append(p.others, d.send(p, codec.ApiVersions, v, req))
		}
		return
	}
	switch p.role {
	case "admin":
		d.actAdmin(p)
		return
	case "prober":
		d.actProber(p)
		return
	case "observer":
		if d.plan.DescribeEvery > 0 && d.round%d.plan.DescribeEvery == 0 {
			for _, g := range d.plan.Groups() {
				d.sendDescribe(p, g)
			}
		}
		return
	}
	for p.nextAct < len(p.plan.Actions) && p.plan.Actions[p.nextAct].Round <= d.round {
		a := p.plan.Actions[p.nextAct]
		p.nextAct++
		d.do(p, a)
		if !p.live {
			return
		}
	}
	if p.wants && p.hb == nil && p.leave == nil && d.round >= p.nextTry {
		st := p.c.State()
		if st != client.Joined || d.round-p.lastHB >= d.hbEvery {
			req, v := p.c.NextHeartbeat()
			p.hb = d.send(p, codec.ConsumerGroupHeartbeat, v, req)
		}
	}
}

func (d *driver) do(p *proc, a Action) {
	switch k := a.Kind; k {
	case Join:
		p.wants = true
		p.nextTry = d.round
	case Leave, StaticLeave:
		p.wants = false
		st := p.c.State()
		if st == client.Joined || st == client.Joining {
			p.hb = nil
			req, v := p.c.Leave(k == StaticLeave)
			p.leave = d.send(p, codec.ConsumerGroupHeartbeat, v, req)
		}
	case Close:
		d.close(p)
	case Crash:
		p.c.Crash()
		p.live, p.wants, p.ended = false, false, d.round
		p.closing = true
	case Reset:
		d.disconnect(p)
		d.reconnect(p)
	case Telemetry:
		if p.hasSub {
			v := p.version(codec.PushTelemetry, 1)
			req := p.c.PushTelemetry(v, p.subID, false, []byte("metrics"))
			p.others = append(p.others, d.send(p, codec.PushTelemetry, v, req))
		} else {
			v := p.version(codec.GetTelemetrySubscriptions, 1)
			req := p.c.GetTelemetrySubscriptions(v)
			p.others = append(p.others, d.send(p, codec.GetTelemetrySubscriptions, v, req))
		}
	case Resubscribe:
		p.c.Resubscribe(a.Topics, a.Regex)
	case RenameClient:
		p.renames++
		p.c.SetClientID(fmt.Sprintf("ghostcheck-%s-r%d", p.name, p.renames))
	}
}

func (p *proc) version(key codec.APIKey, want int16) int16 {
	if m, ok := p.c.BrokerMaxVersion(key); ok && m < want {
		return m
	}
	return want
}

// close ends a process cleanly: its leave (if any) is sent with its own id,
// and its connection closes after it (closeEnded).
func (d *driver) close(p *proc) {
	req, v := p.c.Close()
	if req != nil {
		d.send(p, codec.ConsumerGroupHeartbeat, v, req)
	}
	p.live, p.wants, p.ended = false, false, d.round
	p.hb, p.leave, p.others = nil, nil, nil
	p.closing = true
}

// disconnect closes p's connection: what is still on its way to the
// coordinator on it is lost, and the target is told (Target.Disconnect).
func (d *driver) disconnect(p *proc) {
	d.mu.Lock()
	closed := d.closedConns[p.connID]
	d.closedConns[p.connID] = true
	d.mu.Unlock()
	if !closed {
		d.target.Disconnect(p.wire)
	}
	d.releaseWire(p)
}

// closeEnded closes the connection of every process that ended (a crash
// or a close) once what it had sent on it has reached the coordinator, as
// a dying process's sockets close: the kernel sends what was written,
// then the FIN. A coordinator that takes an open connection for a live
// member, or keeps heartbeating for a member whose connection closed,
// then keeps a ghost the invariants see (NoGhosts).
func (d *driver) closeEnded() {
	for _, p := range d.procs {
		if !p.closing {
			continue
		}
		queued := false
		for _, r := range d.reqs {
			if r.handle == p.connID {
				queued = true
				break
			}
		}
		if !queued {
			p.closing = false
			d.disconnect(p)
		}
	}
}

func (d *driver) actAdmin(p *proc) {
	for _, a := range d.plan.Admin {
		if a.Round != d.round {
			continue
		}
		var members []codec.LeaveGroupMember
		for _, id := range a.InstanceIDs {
			members = append(members, codec.LeaveGroupMember{GroupInstanceId: codec.Str(id), Reason: codec.Str("ghostcheck admin removal")})
		}
		members = append(members, d.leaveEntries(a)...)
		max := p.version(codec.LeaveGroup, 5)
		if a.Version != nil {
			d.sendLeaveGroup(p, a.Group, members, min(*a.Version, max))
			continue
		}
		calls, _ := rules.PlanLeaveGroup(a.Group, members, max)
		for _, call := range calls {
			p.others = append(p.others, d.send(p, codec.LeaveGroup, call.Version, call.Request))
		}
	}
}

// sendLeaveGroup sends members' LeaveGroup at version v as it is: at v3+
// one batch (Reason only at v5), below v3 one request per entry naming its
// member id alone, whatever it is (an instance id cannot be said there).
func (d *driver) sendLeaveGroup(p *proc, group string, members []codec.LeaveGroupMember, v int16) {
	if v >= 3 {
		req := &codec.LeaveGroupRequest{GroupId: group}
		for _, m := range members {
			if v < 5 {
				m.Reason = codec.Null
			}
			req.Members = append(req.Members, m)
		}
		p.others = append(p.others, d.send(p, codec.LeaveGroup, v, req))
		return
	}
	for _, m := range members {
		p.others = append(p.others, d.send(p, codec.LeaveGroup, v, &codec.LeaveGroupRequest{GroupId: group, MemberId: m.MemberId}))
	}
}

// leaveEntries resolves a removal's Entries against the processes of its
// group now: the member id a process holds and the instance id a static
// one was given (LeaveName).
func (d *driver) leaveEntries(a AdminRemoval) []codec.LeaveGroupMember {
	var group []*proc
	for _, p := range d.procs[:len(d.plan.Clients)] {
		if p.group == a.Group {
			group = append(group, p)
		}
	}
	var out []codec.LeaveGroupMember
	for _, e := range a.Entries {
		m := codec.LeaveGroupMember{Reason: codec.Str("ghostcheck admin removal")}
		var self, other *proc
		if n := len(group); n > 0 {
			self, other = group[e.Client%n], group[(e.Client+1)%n]
		}
		switch {
		case e.Member == NameUnknown:
			m.MemberId = "ghostcheck-unknown-member"
		case e.Member == NameOwn && self != nil:
			m.MemberId = self.c.MemberID()
		case e.Member == NameOther && other != nil:
			m.MemberId = other.c.MemberID()
		}
		switch {
		case e.Instance == NameUnknown:
			m.GroupInstanceId = codec.Str("inst-unknown")
		case e.Instance == NameOwn && self != nil && self.plan.InstanceID != "":
			m.GroupInstanceId = codec.Str(self.plan.InstanceID)
		case e.Instance == NameOther && self != nil:
			m.GroupInstanceId = otherInstance(group, self, e.Client)
		}
		out = append(out, m)
	}
	return out
}

// otherInstance is the instance id of a static process of group other than
// self's own, the first from start on, or null if there is none.
func otherInstance(group []*proc, self *proc, start int) codec.NullableString {
	for i := range group {
		p := group[(start+1+i)%len(group)]
		if id := p.plan.InstanceID; id != "" && id != self.plan.InstanceID {
			return codec.Str(id)
		}
	}
	return codec.Null
}

func (d *driver) sendDescribe(p *proc, group string) {
	v := p.version(codec.ConsumerGroupDescribe, 1)
	req := &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}, IncludeAuthorizedOperations: d.plan.DescribeOps}
	p.others = append(p.others, d.send(p, codec.ConsumerGroupDescribe, v, req))
}

// faultAt is the plan's fault of the process's request n (1-based), if
// any. n only grows from call to call.
func (p *proc) faultAt(n int) (Fault, bool) {
	for p.nextFault < len(p.faults) && p.faults[p.nextFault].Request < n {
		p.nextFault++
	}
	var f Fault
	found := false
	for i := p.nextFault; i < len(p.faults) && p.faults[i].Request == n; i++ {
		f, found = p.faults[i], true
	}
	return f, found
}
