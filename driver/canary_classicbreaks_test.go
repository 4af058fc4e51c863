package driver

import (
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// classicRules are the classic protocol's client rules.
var classicRules = []rules.Rule{rules.RuleMemberIDRequiredRejoin, rules.RuleClassicStaticInstanceID, rules.RuleNoRejoinAfterFencedInstance}

// classicRecords builds one client's records: each request on a
// connection, sent at a time and answered at another.
type classicRecords struct {
	reqs []rules.ClientRequest
	seqs map[uint64]int
}

func (c *classicRecords) add(conn uint64, at, answered int64, v int16, req, resp codec.Message) {
	if c.seqs == nil {
		c.seqs = map[uint64]int{}
	}
	h := codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: v, CorrelationId: int32(len(c.reqs) + 1)}
	if c.seqs[conn] == 0 {
		h.ClientId = codec.Str("classic-canary")
	}
	hv, _ := codec.RequestHeaderVersion(h.RequestApiKey, v)
	if hv >= 2 {
		h.ClientInstanceId = codec.SomeUUID(codec.UUID{0: 0xc1, 15: 1})
	}
	c.reqs = append(c.reqs, rules.ClientRequest{Conn: conn, Broker: "canary", Seq: c.seqs[conn], At: at, Answered: answered,
		HeaderVersion: hv, Header: h, API: h.RequestApiKey.String(), Request: req, Response: resp})
	c.seqs[conn]++
}

func classicJoin(member, inst string) *codec.JoinGroupRequest {
	r := &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000, MemberId: member, ProtocolType: "consumer",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "range"}}}
	if inst != "" {
		r.GroupInstanceId = codec.Str(inst)
	}
	return r
}

func joinAnswer(code codec.ErrorCode, member string, gen int32) *codec.JoinGroupResponse {
	return &codec.JoinGroupResponse{ErrorCode: code, MemberId: member, GenerationId: gen, ProtocolName: codec.Str("range"), Leader: member}
}

func classicBeat(member, inst string, gen int32) *codec.HeartbeatRequest {
	r := &codec.HeartbeatRequest{GroupId: "g", GenerationId: gen, MemberId: member}
	if inst != "" {
		r.GroupInstanceId = codec.Str(inst)
	}
	return r
}

// The canary's account of the classic client rules follows each rule's
// section of docs/PROTOCOL.md Part C (the answer reaching the client, the
// reading of a close, a LeaveGroup giving the id up, a stale generation's
// fence, NOT ADOPTED below a version), and the client rules judge each
// case the same: VIOLATED exactly where the account says the client broke
// the rule.
func TestClassicBreaksAccount(t *testing.T) {
	const id = "classic-canary-0b7e8a52-5c0b-4b8e-9a57-1f2b8f0c1d2e"
	hb := func(code codec.ErrorCode) *codec.HeartbeatResponse { return &codec.HeartbeatResponse{ErrorCode: code} }
	for _, tc := range []struct {
		name  string
		build func(c *classicRecords)
		broke []rules.Rule
	}{
		{"rejoin with the id MEMBER_ID_REQUIRED gave", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin("", ""), joinAnswer(codec.MemberIDRequired, id, -1))
			c.add(1, 10, 20, 9, classicJoin(id, ""), joinAnswer(codec.None, id, 1))
		}, nil},
		{"rejoin with MemberId \"\" after MEMBER_ID_REQUIRED", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin("", ""), joinAnswer(codec.MemberIDRequired, id, -1))
			c.add(1, 10, 20, 9, classicJoin("", ""), nil)
		}, []rules.Rule{rules.RuleMemberIDRequiredRejoin}},
		{"a join sent before the answer came, then the rejoin with the id", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin("", ""), joinAnswer(codec.MemberIDRequired, id, -1))
			c.add(2, 5, 30, 9, classicJoin("", ""), nil)
			c.add(1, 10, 20, 9, classicJoin(id, ""), nil)
		}, nil},
		{"MemberId \"\" again on a new connection after the old one went silent", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin("", ""), joinAnswer(codec.MemberIDRequired, id, -1))
			c.add(2, 50, 60, 9, classicJoin("", ""), nil)
		}, nil},
		{"MemberId \"\" again after a LeaveGroup", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin("", ""), joinAnswer(codec.MemberIDRequired, id, -1))
			c.add(1, 10, 20, 5, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: id}}}, nil)
			c.add(1, 20, 30, 9, classicJoin("", ""), nil)
		}, nil},
		{"a static member's Heartbeat without its instance", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 1))
			c.add(1, 10, 20, 4, classicBeat(id, "", 1), hb(codec.None))
		}, []rules.Rule{rules.RuleClassicStaticInstanceID}},
		{"a static member's JoinGroup naming another instance", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 1))
			c.add(1, 10, 20, 9, classicJoin(id, "i2"), nil)
		}, []rules.Rule{rules.RuleClassicStaticInstanceID}},
		{"a Heartbeat at a version without the field", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 1))
			c.add(1, 10, 20, 2, classicBeat(id, "", 1), hb(codec.None))
		}, nil},
		{"another instance from a new process", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 1))
			c.add(2, 50, 60, 4, classicBeat(id, "i2", 1), hb(codec.None))
		}, nil},
		{"JoinGroup v3 only: neither rule adopted", func(c *classicRecords) {
			c.add(1, 0, 10, 3, classicJoin("", ""), joinAnswer(codec.MemberIDRequired, id, -1))
			c.add(1, 10, 20, 3, classicJoin("", ""), nil)
		}, nil},
		{"a join naming the instance after a JoinGroup answered FENCED_INSTANCE_ID", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin("", "i1"), joinAnswer(codec.FencedInstanceID, id, -1))
			c.add(1, 10, 20, 9, classicJoin("", "i1"), nil)
		}, []rules.Rule{rules.RuleNoRejoinAfterFencedInstance}},
		{"a request sent before the SyncGroup's FENCED_INSTANCE_ID came", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 1))
			c.add(1, 10, 30, 5, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 1, MemberId: id, GroupInstanceId: codec.Str("i1")},
				&codec.SyncGroupResponse{ErrorCode: codec.FencedInstanceID})
			c.add(2, 20, 40, 4, classicBeat(id, "i1", 1), hb(codec.FencedInstanceID))
		}, nil},
		{"a LeaveGroup naming the instance after a Heartbeat at the latest generation was fenced", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 2))
			c.add(1, 10, 20, 4, classicBeat(id, "i1", 2), hb(codec.FencedInstanceID))
			c.add(1, 20, 30, 5, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: id, GroupInstanceId: codec.Str("i1")}}}, nil)
		}, []rules.Rule{rules.RuleNoRejoinAfterFencedInstance}},
		{"a Heartbeat's fence of a generation the client left", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 2))
			c.add(1, 10, 20, 4, classicBeat(id, "i1", 1), hb(codec.FencedInstanceID))
			c.add(1, 20, 30, 9, classicJoin(id, "i1"), nil)
		}, nil},
		{"a Heartbeat's fence after ILLEGAL_GENERATION cost the generation", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin(id, "i1"), joinAnswer(codec.None, id, 2))
			c.add(1, 10, 20, 4, classicBeat(id, "i1", 2), hb(codec.IllegalGeneration))
			c.add(1, 20, 30, 4, classicBeat(id, "i1", 2), hb(codec.FencedInstanceID))
			c.add(1, 30, 40, 9, classicJoin(id, "i1"), nil)
		}, nil},
		{"the instance again from a new process after the fence", func(c *classicRecords) {
			c.add(1, 0, 10, 9, classicJoin("", "i1"), joinAnswer(codec.FencedInstanceID, id, -1))
			c.add(2, 50, 60, 9, classicJoin("", "i1"), nil)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c classicRecords
			tc.build(&c)
			want := map[rules.Rule]string{}
			for _, m := range expectedBreaks(c.reqs) {
				for _, r := range classicRules {
					if why, ok := m[r]; ok {
						want[r] = why
					}
				}
			}
			var broke []rules.Rule
			for _, r := range classicRules {
				if _, ok := want[r]; ok {
					broke = append(broke, r)
				}
			}
			if !slices.Equal(broke, tc.broke) {
				t.Fatalf("the account says the client broke %v (%v), want %v", broke, want, tc.broke)
			}
			got := rules.CheckClients(c.reqs)
			if len(got) != 1 {
				t.Fatalf("the records split into %d clients", len(got))
			}
			for _, r := range classicRules {
				res := got[0].Result(r)
				if _, b := want[r]; b != (res.Outcome == rules.OutcomeViolated) {
					t.Errorf("%s: the account says broke=%v, the client rules judged %s: %s", r, b, res.Outcome, res.Detail)
				}
			}
		})
	}
}

// In classic runs the prober breaks ClassicStaticInstanceID (its odd
// JoinGroup names a live member's instance, a later stale Heartbeat
// another or none) and the canary agrees with the client rules, classic
// rules included; a classic rule gone blind on it is a harness error.
func TestCanaryClassicBreaks(t *testing.T) {
	broken := map[rules.Rule]int{}
	var d *driver // the first classic run whose prober breaks ClassicStaticInstanceID
	for _, proto := range []plan.Protocol{plan.ProtocolClassic, plan.ProtocolMixed} {
		for seed := uint64(1); seed <= 25; seed++ {
			run := classicRun(t, seed, proto)
			if len(run.res.HarnessErrors) > 0 {
				t.Fatalf("%s seed %d: %v", proto, seed, run.res.HarnessErrors)
			}
			want := expectedBreaks(run.clients.breakers)
			for _, rs := range want {
				for r := range rs {
					broken[r]++
				}
			}
			prober := run.procs.all[len(run.plan.Clients)+1].c.InstanceID()
			if _, ok := want[prober][rules.RuleClassicStaticInstanceID]; ok && d == nil && proto == plan.ProtocolClassic {
				d = run
			}
		}
	}
	if broken[rules.RuleClassicStaticInstanceID] == 0 || d == nil {
		t.Fatalf("no classic plan of seeds 1-25 made the prober break ClassicStaticInstanceID: %v", broken)
	}

	roles := map[codec.UUID]string{}
	for _, p := range d.procs.all[len(d.plan.Clients):] {
		roles[p.c.InstanceID()] = p.role.String()
	}
	prober := d.procs.all[len(d.plan.Clients)+1].c.InstanceID()
	want := expectedBreaks(d.clients.breakers)
	got := rules.CheckClients(d.clients.breakers)
	for i := range got {
		if got[i].InstanceID.UUID != prober {
			continue
		}
		for j := range got[i].Results {
			if got[i].Results[j].Rule == rules.RuleClassicStaticInstanceID {
				got[i].Results[j].Outcome = rules.OutcomePass
			}
		}
	}
	errs := canaryErrors(roles, want, got)
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "client rule ClassicStaticInstanceID went blind: the prober broke it on purpose") {
		t.Fatalf("canary errors %q, want the blind ClassicStaticInstanceID", errs)
	}
}
