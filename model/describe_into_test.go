package model_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// intoCheck holds DescribeInto and SnapshotInto to Handle and Snapshot in
// every state a generated run reaches: the answers, the snapshots and the
// coordinator's state after them are the same, though the responses and
// the snapshot they are written into are dirty (what the last state, or
// junk, left in them); and writing the same answer again into the same
// memory allocates (almost) nothing.
type intoCheck struct {
	consumer *codec.ConsumerGroupDescribeResponse
	classic  *codec.DescribeGroupsResponse
	snap     []rules.GroupSnapshot
	// last is the last state's Snapshot: a snapshot taken into it fills
	// an array of its exact length.
	last   []rules.GroupSnapshot
	states int
	// seen counts the cases compared (intoSeen), when not nil.
	seen map[string]int
}

// intoSeen, when set, counts the cases the mixed runs' checks compare
// (TestDescribeIntoReachesEveryCase).
var intoSeen map[string]int

func newIntoCheck() *intoCheck {
	return &intoCheck{consumer: junkConsumerDescribe(), classic: junkDescribeGroups(), snap: junkSnapshot()}
}

// see counts a case compared.
func (ic *intoCheck) see(format string, args ...any) {
	if ic.seen != nil {
		ic.seen[fmt.Sprintf(format, args...)]++
	}
}

// describedIDs are the group ids a generated Describe asks about: the
// runs' groups, the invalid "", and groups that do not exist.
var describedIDs = []string{"g", "h", "", "x", " "}

// snapshotAllocs bounds the allocations of a snapshot taken again into
// the same memory: a classic member's assignment is decoded afresh
// (rules.DecodeAssignment: its decoder and each topic's name); nothing
// else allocates.
func snapshotAllocs(s []rules.GroupSnapshot) float64 {
	n := 0
	for _, g := range s {
		for _, m := range g.Members {
			if m.Classic != nil && len(m.Classic.Assignment) > 0 {
				n += 4 + len(m.Assigned)
			}
		}
	}
	return float64(n)
}

func (ic *intoCheck) check(t *rapid.T, c *model.Coordinator) {
	ic.states++
	want := c.Snapshot()
	ic.snap = c.SnapshotInto(ic.snap)
	if !reflect.DeepEqual(ic.snap, want) {
		t.Fatalf("state %d: SnapshotInto gives\n%s\nSnapshot\n%s", ic.states, dump(ic.snap), dump(want))
	}
	if n, most := testing.AllocsPerRun(3, func() { ic.snap = c.SnapshotInto(ic.snap) }), snapshotAllocs(want); n > most {
		t.Fatalf("state %d: SnapshotInto into the last snapshot of the same state allocates %v times, want at most %v\n%s", ic.states, n, most, dump(want))
	}
	if !reflect.DeepEqual(ic.snap, want) {
		t.Fatalf("state %d: SnapshotInto taken again gives\n%s\nSnapshot\n%s", ic.states, dump(ic.snap), dump(want))
	}
	if got := c.SnapshotInto(ic.last); !reflect.DeepEqual(got, want) {
		t.Fatalf("state %d: SnapshotInto the last state's Snapshot gives\n%s\nSnapshot\n%s", ic.states, dump(got), dump(want))
	}
	ic.last = c.Snapshot()
	for _, g := range want {
		ic.see("snapshot of a %v group with %d members", g.Kind, min(len(g.Members), 2))
	}

	ids := rapid.SliceOfN(rapid.SampledFrom(describedIDs), 0, 4).Draw(t, "described ids")
	conn := model.Conn{ID: uint64(rapid.IntRange(1, 6).Draw(t, "describe conn")), Host: "/10.9.9.9"}
	h := codec.RequestHeader{}
	if rapid.Bool().Draw(t, "describe client id") {
		h.ClientId = codec.Str("observer")
	}
	if rapid.Bool().Draw(t, "consumer describe") {
		h.RequestApiKey, h.RequestApiVersion = codec.ConsumerGroupDescribe, int16(rapid.IntRange(0, 1).Draw(t, "version"))
		req := &codec.ConsumerGroupDescribeRequest{GroupIds: ids, IncludeAuthorizedOperations: rapid.Bool().Draw(t, "ops")}
		ic.compare(t, c, conn, &h, req, ic.consumer)
	} else {
		h.RequestApiKey, h.RequestApiVersion = codec.DescribeGroups, int16(rapid.IntRange(0, 6).Draw(t, "version"))
		req := &codec.DescribeGroupsRequest{Groups: ids, IncludeAuthorizedOperations: h.RequestApiVersion >= 3 && rapid.Bool().Draw(t, "ops")}
		ic.compare(t, c, conn, &h, req, ic.classic)
	}
}

// compare asks one Describe of two clones of c, one through Handle, the
// other through DescribeInto into dirty.
func (ic *intoCheck) compare(t *rapid.T, c *model.Coordinator, conn model.Conn, h *codec.RequestHeader, req, dirty codec.Message) {
	fresh, into := c.Clone(), c.Clone()
	freshHits, intoHits := model.ClauseHits{}, model.ClauseHits{}
	fresh.SetClauseCounter(freshHits)
	into.SetClauseCounter(intoHits)
	want, werr := fresh.Handle(conn, h, req)
	err := into.DescribeInto(conn, h, req, dirty)
	if (werr == nil) != (err == nil) || werr != nil && werr.Error() != err.Error() {
		t.Fatalf("state %d: %v v%d: DescribeInto says %v, Handle %v", ic.states, h.RequestApiKey, h.RequestApiVersion, err, werr)
	}
	if a, b := fresh.AppendState(nil), into.AppendState(nil); !bytes.Equal(a, b) {
		t.Fatalf("state %d: %v v%d: DescribeInto leaves another state than Handle", ic.states, h.RequestApiKey, h.RequestApiVersion)
	}
	if !maps.Equal(freshHits, intoHits) {
		t.Fatalf("state %d: %v v%d: DescribeInto counts clauses %v, Handle %v", ic.states, h.RequestApiKey, h.RequestApiVersion, intoHits, freshHits)
	}
	if werr != nil {
		ic.see("%v %v", h.RequestApiKey, werr)
		return
	}
	ic.see("%v v%d", h.RequestApiKey, h.RequestApiVersion)
	wb, werr := want.AppendTo(nil, h.RequestApiVersion)
	b, err := dirty.AppendTo(nil, h.RequestApiVersion)
	if werr != nil || err != nil || !bytes.Equal(b, wb) {
		t.Fatalf("state %d: %v v%d of %q: DescribeInto encodes (%v)\n%x\n%s\nHandle (%v)\n%x\n%s", ic.states, h.RequestApiKey, h.RequestApiVersion,
			describedOf(req), err, b, dump(dirty), werr, wb, dump(want))
	}
	// The same Describe again into the same response, on the connection
	// the first one introduced: nothing to allocate.
	if n := testing.AllocsPerRun(3, func() { _ = into.DescribeInto(conn, h, req, dirty) }); n > 0 {
		t.Fatalf("state %d: %v v%d of %q into its own answer allocates %v times, want none", ic.states, h.RequestApiKey, h.RequestApiVersion, describedOf(req), n)
	}
	if b, err = dirty.AppendTo(b[:0], h.RequestApiVersion); err != nil || !bytes.Equal(b, wb) {
		t.Fatalf("state %d: %v v%d answered again into its own answer encodes another (%v)", ic.states, h.RequestApiKey, h.RequestApiVersion, err)
	}
}

func describedOf(req codec.Message) []string {
	switch r := req.(type) {
	case *codec.ConsumerGroupDescribeRequest:
		return r.GroupIds
	case *codec.DescribeGroupsRequest:
		return r.Groups
	}
	return nil
}

// junkConsumerDescribe is a response with every field set, lists longer
// and shorter than any answer's, for DescribeInto to overwrite.
func junkConsumerDescribe() *codec.ConsumerGroupDescribeResponse {
	tags := codec.TaggedFields{{Tag: 9, Data: []byte{1}}}
	tp := func(n int) []codec.DescribedTopicPartitions {
		out := make([]codec.DescribedTopicPartitions, n)
		for i := range out {
			out[i] = codec.DescribedTopicPartitions{TopicId: genID(i + 50), TopicName: "junk", Partitions: make([]int32, n, 2*n), UnknownTags: tags}
		}
		return out
	}
	r := &codec.ConsumerGroupDescribeResponse{ThrottleTimeMs: 5, UnknownTags: tags}
	for i := range 7 {
		g := codec.DescribedGroup{ErrorCode: codec.CoordinatorNotAvailable, ErrorMessage: codec.Str("junk"), GroupId: "junk", GroupState: "junk",
			GroupEpoch: 9, AssignmentEpoch: 9, AssignorName: "junk", AuthorizedOperations: 5, UnknownTags: tags}
		for j := range i {
			g.Members = append(g.Members, codec.DescribedMember{MemberId: "junk", InstanceId: codec.Str("junk"), RackId: codec.Str("junk"),
				MemberEpoch: 9, ClientId: "junk", ClientHost: "junk", SubscribedTopicNames: make([]string, j), SubscribedTopicRegex: codec.Str("junk"),
				Assignment: codec.DescribedAssignment{TopicPartitions: tp(j), UnknownTags: tags}, TargetAssignment: codec.DescribedAssignment{TopicPartitions: tp(i - j)},
				MemberType: 9, UnknownTags: tags})
		}
		r.Groups = append(r.Groups, g)
	}
	r.Groups = r.Groups[:2]
	return r
}

// junkDescribeGroups is junkConsumerDescribe for DescribeGroups.
func junkDescribeGroups() *codec.DescribeGroupsResponse {
	tags := codec.TaggedFields{{Tag: 9, Data: []byte{1}}}
	r := &codec.DescribeGroupsResponse{ThrottleTimeMs: 5, UnknownTags: tags}
	for i := range 7 {
		g := codec.DescribeGroupsGroup{ErrorCode: codec.CoordinatorNotAvailable, ErrorMessage: codec.Str("junk"), GroupId: "junk", GroupState: "junk",
			ProtocolType: "junk", ProtocolData: "junk", AuthorizedOperations: 5, UnknownTags: tags}
		for j := range i {
			g.Members = append(g.Members, codec.DescribeGroupsMember{MemberId: "junk", GroupInstanceId: codec.Str("junk"), ClientId: "junk",
				ClientHost: "junk", MemberMetadata: make([]byte, j), MemberAssignment: make([]byte, i-j, 20), UnknownTags: tags})
		}
		r.Groups = append(r.Groups, g)
	}
	r.Groups = r.Groups[:3]
	return r
}

// junkSnapshot is a snapshot with every field set, of both kinds of
// group, for SnapshotInto to overwrite.
func junkSnapshot() []rules.GroupSnapshot {
	tps := func(n int) []rules.TopicPartition { return make([]rules.TopicPartition, n, n+1) }
	var out []rules.GroupSnapshot
	for i := range 5 {
		g := rules.GroupSnapshot{GroupID: "junk", Epoch: 9, Kind: rules.GroupKind(i % 2)}
		if i%2 == 1 {
			g.Classic = &rules.ClassicGroup{State: "junk", Generation: 9, ProtocolType: "junk", Protocol: "junk", Leader: "junk",
				Pending: []rules.PendingSnapshot{{ID: "junk", Deadline: 9}}}
		}
		for j := range i {
			m := rules.MemberSnapshot{MemberID: "junk", InstanceID: "junk", Epoch: 9, Assigned: tps(j), Pending: tps(i - j), Target: tps(1),
				SubscribedTopicNames: []string{"junk"}, SubscribedTopicRegex: codec.Str("junk"), ClassicProtocol: true}
			if j%2 == 0 {
				m.Classic = &rules.ClassicMember{Waiting: "junk", SessionTimeoutMs: 9, New: true, Assignment: []byte("junk")}
			}
			g.Members = append(g.Members, m)
		}
		out = append(out, g)
	}
	return out[:3]
}

// DescribeInto and SnapshotInto against Handle and Snapshot in the states
// of generated runs of consumer groups "g" and "h" (properties_test.go).
func TestDescribeIntoAndSnapshotIntoConsumerRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newMachine(t, rapid.Bool().Draw(t, "faults"))
		m.into = newIntoCheck()
		m.run(t)
	})
}

// DescribeInto and SnapshotInto against Handle and Snapshot in the states
// of generated runs of classic and consumer processes sharing group "g",
// held requests and conversions included (mixed_properties_test.go).
func TestDescribeIntoAndSnapshotIntoMixedRuns(t *testing.T) {
	rapid.Check(t, mixedPropertyChecking(nil, true))
}

// The generated runs compare every version of both apis, Describes held
// behind a held request, and snapshots of both kinds of group, empty or
// not, so that the comparisons hold for each. From a fixed seed: the
// counts are the same every time.
func TestDescribeIntoReachesEveryCase(t *testing.T) {
	if testing.Short() {
		t.Skip("a few hundred generated runs")
	}
	seen := map[string]int{}
	setRapidFlag(t, "rapid.checks", "200")
	setRapidFlag(t, "rapid.seed", "7")
	setRapidFlag(t, "rapid.nofailfile", "true")
	rapid.Check(t, func(t *rapid.T) {
		m := newMachine(t, rapid.Bool().Draw(t, "faults"))
		m.into = newIntoCheck()
		m.into.seen = seen
		m.run(t)
	})
	mixed := mixedPropertyChecking(nil, true)
	rapid.Check(t, func(t *rapid.T) { intoSeen = seen; mixed(t) })
	intoSeen = nil
	want := []string{
		fmt.Sprintf("%v %v", codec.DescribeGroups, model.ErrParked),
		fmt.Sprintf("%v %v", codec.ConsumerGroupDescribe, model.ErrParked),
		"snapshot of a consumer group with 0 members", "snapshot of a consumer group with 2 members",
		"snapshot of a classic group with 0 members", "snapshot of a classic group with 2 members",
	}
	for v := 0; v <= 1; v++ {
		want = append(want, fmt.Sprintf("%v v%d", codec.ConsumerGroupDescribe, v))
	}
	for v := 0; v <= 6; v++ {
		want = append(want, fmt.Sprintf("%v v%d", codec.DescribeGroups, v))
	}
	t.Logf("compared %v", seen)
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("never compared: %s (compared %v)", k, seen)
		}
	}
}

// A Describe at a version the coordinator does not serve is refused as
// Handle refuses it (ErrUnsupportedRequest, the same clause), and leaves
// the response as it was.
func TestDescribeIntoUnsupportedVersion(t *testing.T) {
	for _, tc := range []struct {
		key  codec.APIKey
		req  codec.Message
		resp func() codec.Message
	}{
		{codec.ConsumerGroupDescribe, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}, func() codec.Message { return junkConsumerDescribe() }},
		{codec.DescribeGroups, &codec.DescribeGroupsRequest{Groups: []string{"g"}}, func() codec.Message { return junkDescribeGroups() }},
	} {
		t.Run(tc.key.String(), func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxVersions = map[codec.APIKey]int16{tc.key: 0}
			fresh, into := model.NewCoordinator(cfg), model.NewCoordinator(cfg)
			freshHits, intoHits := model.ClauseHits{}, model.ClauseHits{}
			fresh.SetClauseCounter(freshHits)
			into.SetClauseCounter(intoHits)
			h := codec.RequestHeader{RequestApiKey: tc.key, RequestApiVersion: 1, ClientId: codec.Str("x")}
			_, werr := fresh.Handle(model.Conn{ID: 1}, &h, tc.req)
			resp := tc.resp()
			err := into.DescribeInto(model.Conn{ID: 1}, &h, tc.req, resp)
			if !errors.Is(werr, model.ErrUnsupportedRequest) || !errors.Is(err, model.ErrUnsupportedRequest) {
				t.Fatalf("v1 above a cap of v0: DescribeInto says %v, Handle %v; want %v", err, werr, model.ErrUnsupportedRequest)
			}
			if !maps.Equal(freshHits, intoHits) || !bytes.Equal(fresh.AppendState(nil), into.AppendState(nil)) {
				t.Fatalf("DescribeInto counts %v and leaves another state; Handle counts %v", intoHits, freshHits)
			}
			if !reflect.DeepEqual(resp, tc.resp()) {
				t.Fatalf("a refused DescribeInto changed the response")
			}
		})
	}
}

// A request other than a Describe, a response that does not match the
// request, or none, is an error, and changes nothing.
func TestDescribeIntoRefusesMismatches(t *testing.T) {
	cd := &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}
	dg := &codec.DescribeGroupsRequest{Groups: []string{"g"}}
	hb := &codec.HeartbeatRequest{GroupId: "g"}
	for _, tc := range []struct {
		name string
		req  codec.Message
		resp codec.Message
	}{
		{"consumer describe into DescribeGroups", cd, &codec.DescribeGroupsResponse{}},
		{"DescribeGroups into consumer describe", dg, &codec.ConsumerGroupDescribeResponse{}},
		{"consumer describe into nil", cd, nil},
		{"DescribeGroups into a nil response", dg, (*codec.DescribeGroupsResponse)(nil)},
		{"a nil request", (*codec.ConsumerGroupDescribeRequest)(nil), &codec.ConsumerGroupDescribeResponse{}},
		{"Heartbeat", hb, &codec.HeartbeatResponse{}},
		{"a response as request", &codec.ConsumerGroupDescribeResponse{}, &codec.ConsumerGroupDescribeResponse{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := model.ClauseHits{}
			cfg := testConfig()
			cfg.Clauses = hits
			c := model.NewCoordinator(cfg)
			before := c.AppendState(nil)
			key := codec.ConsumerGroupDescribe
			if tc.req != nil {
				key = tc.req.Key()
			}
			h := codec.RequestHeader{RequestApiKey: key, ClientId: codec.Str("x")}
			err := c.DescribeInto(model.Conn{ID: 1}, &h, tc.req, tc.resp)
			if err == nil || errors.Is(err, model.ErrParked) || errors.Is(err, model.ErrUnsupportedRequest) {
				t.Fatalf("DescribeInto(%T, %T) = %v, want its own error", tc.req, tc.resp, err)
			}
			if !bytes.Equal(c.AppendState(nil), before) || len(hits) != 0 {
				t.Fatalf("a refused DescribeInto changed the coordinator (clauses %v)", hits)
			}
			if _, known := c.ConnClientID(1); known {
				t.Fatalf("a refused DescribeInto recorded the connection")
			}
		})
	}
	c := model.NewCoordinator(testConfig())
	h := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe}
	if err := c.DescribeInto(model.Conn{ID: 1}, nil, cd, &codec.ConsumerGroupDescribeResponse{}); err == nil {
		t.Fatalf("DescribeInto without a header: no error")
	}
	if err := c.DescribeInto(model.Conn{ID: 1}, &h, cd, &codec.ConsumerGroupDescribeResponse{}); err != nil {
		t.Fatalf("DescribeInto of a matching pair: %v", err)
	}
}
