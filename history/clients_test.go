package history

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

func sampleRecording() []rules.ClientRequest {
	inst := codec.UUID{9, 8, 7}
	return []rules.ClientRequest{
		{Conn: 1, Broker: "127.0.0.1:9092", Seq: 0, At: 0, API: "ApiVersions", HeaderVersion: 2,
			Header:   codec.RequestHeader{RequestApiKey: codec.ApiVersions, RequestApiVersion: 3, CorrelationId: 1, ClientId: codec.Str("app"), ClientInstanceId: codec.SomeUUID(inst)},
			Request:  &codec.ApiVersionsRequest{ClientSoftwareName: "x", ClientSoftwareVersion: "1"},
			Response: &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.LeaveGroup, MaxVersion: 5}}}},
		{Conn: 1, Broker: "127.0.0.1:9092", Seq: 1, At: 3, API: "JoinGroup", HeaderVersion: 2,
			Header: codec.RequestHeader{RequestApiKey: 11, RequestApiVersion: 9, CorrelationId: 2, UnknownTags: codec.TaggedFields{{Tag: 5, Data: []byte{1}}}}},
		{Conn: 2, Broker: "127.0.0.1:9093", Seq: 0, At: 7, API: "ConsumerGroupHeartbeat", HeaderVersion: 2,
			Header:   codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: 1, ClientId: codec.Str("app"), ClientInstanceId: codec.SomeUUID(inst)},
			Request:  &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"t"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}},
			Response: &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID}, Fault: "answered UNKNOWN_MEMBER_ID"},
	}
}

// A recording written and read back is the same recording; ReadFile
// refuses it with ErrClientRecording, and ReadClientFile refuses a plan.
func TestClientFileRoundTrip(t *testing.T) {
	reqs := sampleRecording()
	res := rules.CheckClients(reqs)
	hdr := ClientFileHeader{Target: "127.0.0.1:9092", Title: "sample", Faults: "unknown-member-id=100", Seed: 3, Expect: ClientExpect(res)}
	var buf bytes.Buffer
	if err := WriteClientFile(&buf, hdr, reqs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"kind":"clients/v1"`) || !strings.Contains(buf.String(), `"api":"JoinGroup"`) {
		t.Fatalf("the file does not say its kind or the api's name:\n%s", buf.String())
	}
	gotHdr, got, err := ReadClientFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	hdr.Schema, hdr.Kind = SchemaV1, KindClients
	if !reflect.DeepEqual(gotHdr, hdr) {
		t.Errorf("header %+v, want %+v", gotHdr, hdr)
	}
	if !reflect.DeepEqual(got, reqs) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, reqs)
	}
	if _, _, err := ReadFile(bytes.NewReader(buf.Bytes())); !errors.Is(err, ErrClientRecording) {
		t.Errorf("ReadFile of a recording: %v, want ErrClientRecording", err)
	}
	plan, err := os.ReadFile("../corpus/histories/v0-lost-join-response-ghost.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadClientFile(bytes.NewReader(plan)); err == nil {
		t.Error("ReadClientFile read a plan's history")
	}
	if _, _, err := ReadFile(bytes.NewReader(plan)); err != nil {
		t.Errorf("an old plan file no longer reads: %v", err)
	}
	bad := strings.Replace(buf.String(), `"clients/v1"`, `"clients/v9"`, 1)
	if _, _, err := ReadFile(strings.NewReader(bad)); err == nil || errors.Is(err, ErrClientRecording) {
		t.Errorf("an unknown kind: %v", err)
	}
}

// The expected verdict of a recording: the first violation of the first
// client that broke a rule, and every outcome.
func TestClientExpect(t *testing.T) {
	reqs := sampleRecording()
	// The JoinGroup's header v2 lacks the tag 0 the others carry.
	e := ClientExpect(rules.CheckClients(reqs))
	if e.Verdict != Illegal || e.Rule != string(rules.RuleClientInstanceIDInHeader) || len(e.Clients) != 1 {
		t.Fatalf("expect %+v", e)
	}
	for _, c := range e.Clients {
		if c[string(rules.RuleClientInstanceIDInHeader)] != string(rules.OutcomeViolated) || c[string(rules.RuleStableMemberID)] != string(rules.OutcomePass) {
			t.Errorf("outcomes %v", c)
		}
	}
	reqs[1].Header.ClientInstanceId = reqs[0].Header.ClientInstanceId
	if e := ClientExpect(rules.CheckClients(reqs)); e.Verdict != Ok || e.Rule != "" {
		t.Errorf("with tag 0 everywhere: %+v", e)
	}
}
