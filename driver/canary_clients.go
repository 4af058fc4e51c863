package driver

// The client rules' canary, synthetic part. The admin and the prober
// (canary.go) break client rules live, on the coordinator the run tests,
// where their requests cannot disturb the plan's clients. Some breaks do
// not fit there: two clients sending one member id would put a member the
// plan does not know into a group of the history (or share a plan
// client's), a connection that leaves ClientId out or repeats it changes
// what the coordinator remembers of it (A2), and clients that never send
// KIP-1313's tag 0, or open a connection without it, would be judged
// under keys the live canary does not name. So these are played on paper:
// a fixed record set, built here and never sent, of the clients below,
// each with the rules the harness made it break (the harness's own
// account, from docs/PROTOCOL.md Part C) and the rules it must be judged
// not to have adopted or not to have shown. rules.CheckClients must split
// the records into exactly these clients and judge each as listed; any
// other verdict is a harness error, as for the live canary. It runs with
// the invariants' canary, in one history in canaryEvery.

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// synthClient is one client of the synthetic record set: the key
// rules.CheckClients names it by (ClientResult.Client), and what it must
// be judged.
type synthClient struct {
	what       string
	client     string
	broke      []rules.Rule
	notAdopted []rules.Rule
	notSeen    []rules.Rule
}

// synthRecords builds the synthetic record set and its clients.
func synthRecords() ([]rules.ClientRequest, []synthClient) {
	var reqs []rules.ClientRequest
	seq := map[uint64]int{}
	add := func(conn uint64, inst codec.NullableUUID, clientID codec.NullableString, version int16, req, resp codec.Message) {
		h := codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: version, CorrelationId: int32(len(reqs) + 1), ClientId: clientID}
		hv, _ := codec.RequestHeaderVersion(h.RequestApiKey, version)
		if hv >= 2 {
			h.ClientInstanceId = inst // header v1 has no tags
		}
		reqs = append(reqs, rules.ClientRequest{Conn: conn, Broker: "canary", Seq: seq[conn], At: int64(len(reqs)), HeaderVersion: hv,
			Header: h, API: h.RequestApiKey.String(), Request: req, Response: resp})
		seq[conn]++
	}
	uuid := func(n byte) codec.UUID { return codec.UUID{0: 0xca, 1: 0x4a, 2: 0xc1, 15: n} }
	inst := func(n byte) codec.NullableUUID { return codec.SomeUUID(uuid(n)) }
	join := func(member string) *codec.ConsumerGroupHeartbeatRequest {
		return &codec.ConsumerGroupHeartbeatRequest{GroupId: "canary", MemberId: member, MemberEpoch: 0, RebalanceTimeoutMs: 45000,
			SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	}
	beat := func(member string) *codec.ConsumerGroupHeartbeatRequest {
		return &codec.ConsumerGroupHeartbeatRequest{GroupId: "canary", MemberId: member, MemberEpoch: 1, RebalanceTimeoutMs: -1}
	}
	joined := func(member string) *codec.ConsumerGroupHeartbeatResponse {
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(member), MemberEpoch: 1, HeartbeatIntervalMs: 5000}
	}
	name := func(n byte, id string) string { return "instance " + uuid(n).String() + " (" + id + ")" }
	var clients []synthClient

	// Two processes drawing one member id (librdkafka#5263's weak
	// generator): both are reported.
	shared := "canary-shared-member"
	add(1, inst(1), codec.Str("canary-twin-a"), 1, join(shared), joined(shared))
	add(2, inst(2), codec.Str("canary-twin-b"), 1, join(shared), joined(shared))
	clients = append(clients,
		synthClient{what: "a client sending a member id another client sends", client: name(1, "canary-twin-a"), broke: []rules.Rule{rules.RuleUniqueMemberIDs}},
		synthClient{what: "the other client sending it", client: name(2, "canary-twin-b"), broke: []rules.Rule{rules.RuleUniqueMemberIDs}})

	// The zero UUID as member id, and as tag 0.
	add(3, inst(3), codec.Str("canary-zero-member"), 1, join(codec.UUID{}.String()), nil)
	clients = append(clients, synthClient{what: "a client sending the zero UUID as member id", client: name(3, "canary-zero-member"),
		broke: []rules.Rule{rules.RuleNoZeroUUIDs}})
	add(4, codec.SomeUUID(codec.UUID{}), codec.Str("canary-zero-instance"), 1, join("canary-zero-instance-member"), nil)
	clients = append(clients, synthClient{what: "a client sending the zero UUID in tag 0", client: "instance " + codec.UUID{}.String() + " (canary-zero-instance)",
		broke: []rules.Rule{rules.RuleClientInstanceIDInHeader, rules.RuleNoZeroUUIDs}})

	// A KIP-1313 client (a later request's ClientId null) that repeats
	// ClientId on a later request.
	add(5, inst(5), codec.Str("canary-repeat"), 1, join("canary-repeat-member"), joined("canary-repeat-member"))
	add(5, inst(5), codec.NullableString{}, 1, beat("canary-repeat-member"), nil)
	add(5, inst(5), codec.Str("canary-repeat"), 1, beat("canary-repeat-member"), nil)
	clients = append(clients, synthClient{what: "a KIP-1313 client repeating ClientId on a later request", client: name(5, "canary-repeat"),
		broke: []rules.Rule{rules.RuleClientIDOnFirstRequest}})

	// A KIP-1313 client opening a connection without ClientId.
	add(6, inst(6), codec.NullableString{}, 1, join("canary-anonymous-member"), joined("canary-anonymous-member"))
	add(7, inst(6), codec.Str("canary-anonymous"), 1, beat("canary-anonymous-member"), nil)
	add(7, inst(6), codec.NullableString{}, 1, beat("canary-anonymous-member"), nil)
	clients = append(clients, synthClient{what: "a KIP-1313 client opening a connection without ClientId", client: name(6, "canary-anonymous"),
		broke: []rules.Rule{rules.RuleClientIDOnFirstRequest}})

	// A client that removed its own member with LeaveGroup, on a
	// connection of its own without tag 0 (header v1, same ClientId), then
	// heartbeats under it.
	add(8, inst(8), codec.Str("canary-leaver"), 1, join("canary-leaver-member"), joined("canary-leaver-member"))
	add(9, inst(8), codec.Str("canary-leaver"), 3, &codec.LeaveGroupRequest{GroupId: "canary", Members: []codec.LeaveGroupMember{{MemberId: "canary-leaver-member"}}},
		&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{{MemberId: "canary-leaver-member"}}})
	add(8, inst(8), codec.NullableString{}, 1, beat("canary-leaver-member"), nil)
	clients = append(clients, synthClient{what: "a client heartbeating after its LeaveGroup", client: name(8, "canary-leaver"),
		broke: []rules.Rule{rules.RuleNoHeartbeatAfterLeave}})

	// A client before KIP-1313: no tag 0 anywhere, ClientId on every
	// request, telemetry at v0 with KIP-714's id in the body. Judged by
	// its ClientId, and as not having adopted the KIP, not as breaking it.
	add(10, codec.NullableUUID{}, codec.Str("canary-old"), 1, join("canary-old-member"), joined("canary-old-member"))
	add(10, codec.NullableUUID{}, codec.Str("canary-old"), 1, beat("canary-old-member"), nil)
	add(10, codec.NullableUUID{}, codec.Str("canary-old"), 0, &codec.GetTelemetrySubscriptionsRequest{}, nil)
	clients = append(clients, synthClient{what: "a client before KIP-1313", client: "clientId canary-old",
		notAdopted: []rules.Rule{rules.RuleClientInstanceIDInHeader, rules.RuleClientIDOnFirstRequest, rules.RuleTelemetryInstanceID}})

	// A LeaveGroup v3 alone (header v1) on a connection without ClientId:
	// nothing to judge a header by.
	add(11, codec.NullableUUID{}, codec.NullableString{}, 3, &codec.LeaveGroupRequest{GroupId: "canary", Members: []codec.LeaveGroupMember{{MemberId: "canary-someone"}}}, nil)
	clients = append(clients, synthClient{what: "a bare LeaveGroup v3", client: "conn 11",
		notSeen: []rules.Rule{rules.RuleClientInstanceIDInHeader, rules.RuleClientIDOnFirstRequest}})
	return reqs, clients
}

// synthErrors compares the client rules' verdicts got on the synthetic
// records with what each of clients must be judged.
func synthErrors(clients []synthClient, got []rules.ClientResult) []string {
	var errs []string
	seen := map[string]bool{}
	for _, c := range got {
		i := slices.IndexFunc(clients, func(s synthClient) bool { return s.client == c.Client })
		if i < 0 {
			errs = append(errs, fmt.Sprintf("client rules: the canary's synthetic records show a client %s that is none of its own", c.Client))
			continue
		}
		s := clients[i]
		seen[s.client] = true
		for _, rule := range rules.ClientRules() {
			r := c.Result(rule)
			if r.Rule != rule {
				errs = append(errs, fmt.Sprintf("client rule %s judged nothing of the canary's synthetic %s", rule, s.what))
				continue
			}
			want := rules.OutcomePass
			switch {
			case slices.Contains(s.broke, r.Rule):
				want = rules.OutcomeViolated
			case slices.Contains(s.notAdopted, r.Rule):
				want = rules.OutcomeNotAdopted
			case slices.Contains(s.notSeen, r.Rule):
				want = rules.OutcomeNotSeen
			}
			switch {
			case want == rules.OutcomeViolated && r.Outcome != want:
				errs = append(errs, fmt.Sprintf("client rule %s went blind: the canary's synthetic records break it (%s), and the client rules judged it %s", r.Rule, s.what, r.Outcome))
			case want != rules.OutcomeViolated && r.Outcome == rules.OutcomeViolated:
				errs = append(errs, fmt.Sprintf("client rule %s fired on the canary's synthetic %s, which does not break it: %s", r.Rule, s.what, r.Detail))
			case want != rules.OutcomePass && r.Outcome != want:
				errs = append(errs, fmt.Sprintf("client rule %s judged the canary's synthetic %s %s, want %s", r.Rule, s.what, r.Outcome, want))
			}
		}
	}
	for _, s := range clients {
		if !seen[s.client] {
			errs = append(errs, fmt.Sprintf("client rules: the canary's synthetic %s is missing from the verdicts (want %s)", s.what, s.client))
		}
	}
	return errs
}

// checkSynth runs the synthetic part of the client rules' canary, in one
// history in canaryEvery, and reports its errors as harness errors.
func (l *clientLog) checkSynth() {
	if !l.d.canaries {
		return
	}
	reqs, clients := synthRecords()
	for _, e := range synthErrors(clients, rules.CheckClients(reqs)) {
		l.d.harness("%s", e)
	}
}
