package model_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// The rule tests drive a Coordinator the way a transcript reads: every
// request goes through Handle with a real request header, and every
// expectation is stated in words first (after golang.org/x/net/http2's
// tc.wantFrame). Expected values are written by hand from docs/PROTOCOL.md; none
// is computed by the code under test.

// The test cluster: three topics, listed out of name order on purpose (the
// assignor walks them in name order, docs/PROTOCOL.md A5).
//
//	a: 3 partitions   b: 2 partitions   c: 1 partition
func testConfig() model.Config {
	return model.Config{
		Topics: []model.Topic{
			{Name: "c", ID: model.TopicIDFor("c"), Partitions: 1},
			{Name: "a", ID: model.TopicIDFor("a"), Partitions: 3},
			{Name: "b", ID: model.TopicIDFor("b"), Partitions: 2},
		},
		SessionTimeoutMs:    45000,
		HeartbeatIntervalMs: 5000,
		Telemetry: model.TelemetryConfig{
			SubscriptionID:           7,
			PushIntervalMs:           30000,
			TelemetryMaxBytes:        8,
			AcceptedCompressionTypes: []int8{0, 4},
			DeltaTemporality:         true,
			RequestedMetrics:         []string{"org.apache.kafka.consumer"},
		},
		NewID: countingIDs(),
	}
}

// countingIDs is an id source whose n-th id (from 1) has every byte n, so a
// test can name the ids the coordinator will make: genID(1), genID(2), ...
func countingIDs() func() codec.UUID {
	n := 0
	return func() codec.UUID { n++; return genID(n) }
}

func genID(n int) codec.UUID {
	var u codec.UUID
	for i := range u {
		u[i] = byte(n)
	}
	return u
}

const (
	testClientID = "rule-client"
	testHost     = "/10.0.0.7"
	rebalanceMs  = 60000
)

// testInstance is the client instance id the rule tests' headers carry.
var testInstance = codec.UUID{0x5e, 0x1f, 15: 0x01}

// coordTest is one coordinator and one client connection to it.
type coordTest struct {
	t    *testing.T
	c    *model.Coordinator
	conn model.Conn
	sent bool // the connection has carried a request (KIP-1313: ClientId only on the first)
	corr int32
}

func newCoordTest(t *testing.T, tweak ...func(*model.Config)) *coordTest {
	t.Helper()
	cfg := testConfig()
	for _, f := range tweak {
		f(&cfg)
	}
	return &coordTest{t: t, c: model.NewCoordinator(cfg), conn: model.Conn{ID: 1, Host: testHost}}
}

// header builds the next request header the way a KIP-1313 client does:
// ClientId on the connection's first request only, the client instance id
// in tag 0 of every header v2.
func (tc *coordTest) header(key codec.APIKey, version int16) codec.RequestHeader {
	tc.corr++
	h := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: tc.corr}
	if !tc.sent {
		h.ClientId = codec.Str(testClientID)
	}
	tc.sent = true
	if hv, err := codec.RequestHeaderVersion(key, version); err == nil && hv >= 2 {
		h.ClientInstanceId = codec.SomeUUID(testInstance)
	}
	return h
}

// send hands req to the coordinator with a fresh header and returns the
// response. The response must be encodable at the request's version: the
// wire format is the vocabulary.
func (tc *coordTest) send(version int16, req codec.Message) codec.Message {
	tc.t.Helper()
	h := tc.header(req.Key(), version)
	return tc.sendWith(&h, req)
}

func (tc *coordTest) sendWith(h *codec.RequestHeader, req codec.Message) codec.Message {
	tc.t.Helper()
	resp, err := tc.c.Handle(tc.conn, h, req)
	if err != nil {
		tc.t.Fatalf("Handle(%v v%d): %v", h.RequestApiKey, h.RequestApiVersion, err)
	}
	if _, err := resp.AppendTo(nil, h.RequestApiVersion); err != nil {
		tc.t.Fatalf("the %v v%d response does not encode: %v\n%s", h.RequestApiKey, h.RequestApiVersion, err, dump(resp))
	}
	return resp
}

func (tc *coordTest) heartbeat(version int16, req *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
	tc.t.Helper()
	return tc.send(version, req).(*codec.ConsumerGroupHeartbeatResponse)
}

// ok sends a heartbeat that must succeed; setup steps use it.
func (tc *coordTest) ok(version int16, req *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
	tc.t.Helper()
	resp := tc.heartbeat(version, req)
	if resp.ErrorCode != codec.None {
		tc.t.Fatalf("setup: %s epoch %d: %v %q, want success", req.MemberId, req.MemberEpoch, resp.ErrorCode, resp.ErrorMessage.Value)
	}
	return resp
}

func (tc *coordTest) describeGroup(version int16, id string) codec.DescribedGroup {
	tc.t.Helper()
	resp := tc.send(version, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{id}}).(*codec.ConsumerGroupDescribeResponse)
	if len(resp.Groups) != 1 {
		tc.t.Fatalf("describe %q: %d groups, want 1", id, len(resp.Groups))
	}
	return resp.Groups[0]
}

// want fails the test unless got and want encode to the same bytes at
// version: the full response as a client would read it.
func (tc *coordTest) want(what string, version int16, got, want codec.Message) {
	tc.t.Helper()
	if d := codectest.WireDiff(version, got, want); d != "" {
		tc.t.Errorf("%s:\n%s", what, d)
	}
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// wantHeartbeatError checks an error response whose message docs/PROTOCOL.md does
// not quote: the code, a message naming each of mentions, and the rest of
// an error response (§B3.3: MemberId null, epoch 0, interval 0, no
// assignment).
func (tc *coordTest) wantHeartbeatError(what string, got *codec.ConsumerGroupHeartbeatResponse, code codec.ErrorCode, mentions ...string) {
	tc.t.Helper()
	msg := got.ErrorMessage
	rest := *got
	rest.ErrorMessage = codec.Null
	tc.want(what, 1, &rest, &codec.ConsumerGroupHeartbeatResponse{ErrorCode: code})
	if !msg.Valid {
		tc.t.Errorf("%s: ErrorMessage is null, want a message", what)
	}
	for _, m := range mentions {
		if !strings.Contains(msg.Value, m) {
			tc.t.Errorf("%s: ErrorMessage %q does not mention %q", what, msg.Value, m)
		}
	}
}

// invalid is the full response to a request that fails §B4.2 validation.
func invalid(msg string) *codec.ConsumerGroupHeartbeatResponse {
	return &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.InvalidRequest, ErrorMessage: codec.Str(msg)}
}

// success is a successful heartbeat response; assignment "-" means absent.
func success(memberID string, epoch int32, assignment string) *codec.ConsumerGroupHeartbeatResponse {
	r := &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(memberID), MemberEpoch: epoch, HeartbeatIntervalMs: 5000}
	if assignment != "-" {
		r.Assignment = &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: testreq.Owned(assignment)}
	}
	return r
}

// left is the response to a successful leave (epoch -1 or -2): the member
// id and the epoch echoed, nothing else (§B4.4 leave path).
func left(memberID string, epoch int32) *codec.ConsumerGroupHeartbeatResponse {
	return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(memberID), MemberEpoch: epoch}
}

// parts parses "a0 a2 b1" (topic letter, partition number) into topic ->
// sorted partitions.
func parts(s string) map[string][]int32 {
	out := map[string][]int32{}
	for _, f := range strings.Fields(s) {
		p, err := strconv.Atoi(f[1:])
		if err != nil {
			panic("bad partition " + f)
		}
		out[f[:1]] = append(out[f[:1]], int32(p))
	}
	for _, ps := range out {
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	}
	return out
}

func topicsOf(m map[string][]int32) []string {
	var ts []string
	for t := range m {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return ts
}

func describedParts(s string) codec.DescribedAssignment {
	m := parts(s)
	var out []codec.DescribedTopicPartitions
	for _, t := range topicsOf(m) {
		out = append(out, codec.DescribedTopicPartitions{TopicId: model.TopicIDFor(t), TopicName: t, Partitions: m[t]})
	}
	return codec.DescribedAssignment{TopicPartitions: out}
}

// Describe expectations, written compactly.

type wantMember struct {
	id, instance     string // instance "" = null
	epoch            int32
	assigned, target string
	topics           []string
	regex            string // "" = null
	rack             string // "" = null
	clientID, host   string // "" = the rule tests' connection
}

type wantGroup struct {
	state   string
	epoch   int32
	members []wantMember
}

func nullable(s string) codec.NullableString {
	if s == "" {
		return codec.Null
	}
	return codec.Str(s)
}

// described renders the expectation at ConsumerGroupDescribe version.
func (w wantGroup) described(id string, version int16) codec.DescribedGroup {
	g := codec.DescribedGroup{
		GroupId: id, GroupState: w.state, GroupEpoch: w.epoch, AssignmentEpoch: w.epoch,
		AssignorName: "uniform", AuthorizedOperations: codec.AuthorizedOperationsOmitted,
	}
	for _, m := range w.members {
		dm := codec.DescribedMember{
			MemberId: m.id, InstanceId: nullable(m.instance), RackId: nullable(m.rack), MemberEpoch: m.epoch,
			ClientId: testClientID, ClientHost: testHost,
			SubscribedTopicNames: m.topics, SubscribedTopicRegex: nullable(m.regex),
			Assignment: describedParts(m.assigned), TargetAssignment: describedParts(m.target),
			MemberType: codec.MemberTypeUnknown,
		}
		if m.clientID != "" {
			dm.ClientId = m.clientID
		}
		if m.host != "" {
			dm.ClientHost = m.host
		}
		if version >= 1 {
			dm.MemberType = codec.MemberTypeConsumer
		}
		g.Members = append(g.Members, dm)
	}
	return g
}

// wantDescribe checks what ConsumerGroupDescribe v1 shows of group id.
func (tc *coordTest) wantDescribe(what, id string, w wantGroup) {
	tc.t.Helper()
	got := tc.describeGroup(1, id)
	tc.want(what+" (describe)", 1,
		&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{got}},
		&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{w.described(id, 1)}})
}

// wantNoGroup checks that group id does not exist.
func (tc *coordTest) wantNoGroup(what, id string) {
	tc.t.Helper()
	got := tc.describeGroup(1, id)
	if got.ErrorCode != codec.GroupIDNotFound || got.GroupId != id || len(got.Members) != 0 {
		tc.t.Errorf("%s: describe %q = %s, want GROUP_ID_NOT_FOUND", what, id, dump(got))
	}
}

// advance moves logical time to t.
func (tc *coordTest) advance(t int64) { tc.c.Advance(t) }
