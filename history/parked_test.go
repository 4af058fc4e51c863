package history

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/plan"
)

// parkedSample is a classic history in miniature: a JoinGroup held (op 0),
// answered when a second member's JoinGroup completed the phase (op 1
// released it), a SyncGroup held and never answered, dropped by a timer
// (the tick, op 3), and a restart that released nothing.
func parkedSample() History {
	join := func(member string) *codec.JoinGroupRequest {
		return &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 6000, RebalanceTimeoutMs: 3000, MemberId: member,
			ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "uniform", Metadata: []byte{0, 2}}}}
	}
	hdr := func(key codec.APIKey, v int16) codec.RequestHeader {
		return codec.RequestHeader{RequestApiKey: key, RequestApiVersion: v, CorrelationId: 1, ClientId: codec.Str("c")}
	}
	answer := &codec.JoinGroupResponse{GenerationId: 1, ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("uniform"), Leader: "a", MemberId: "a",
		Members: []codec.JoinGroupResponseMember{{MemberId: "a", Metadata: []byte{0, 2}}, {MemberId: "b", Metadata: []byte{0, 2}}}}
	return History{
		{ID: 0, Client: 0, Name: "c0", Conn: Conn{ID: 1, Host: "/10.0.0.1"}, ClientID: "c", At: 500, Call: 1, Handled: 2, Return: 4,
			Header: hdr(codec.JoinGroup, 9), Request: join("a"), Response: answer, Parked: true},
		{ID: 1, Client: 1, Name: "c1", Conn: Conn{ID: 2, Host: "/10.0.0.2"}, ClientID: "c", At: 500, Call: 3, Return: 4,
			Header: hdr(codec.JoinGroup, 9), Request: join("b"), Response: &codec.JoinGroupResponse{GenerationId: 1, ProtocolType: codec.Str("consumer"),
				ProtocolName: codec.Str("uniform"), Leader: "a", MemberId: "b", Members: []codec.JoinGroupResponseMember{}}, Releases: []int{0}},
		{ID: 2, Client: 1, Name: "c1", Conn: Conn{ID: 2, Host: "/10.0.0.2"}, ClientID: "c", At: 1000, Call: 5, Handled: 6, Return: Never,
			Header: hdr(codec.SyncGroup, 5), Request: &codec.SyncGroupRequest{GroupId: "g", GenerationId: 1, MemberId: "b",
				ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("uniform"), Assignments: []codec.SyncGroupRequestAssignment{}}, Parked: true},
		{ID: 3, Client: 2, Name: "coordinator", At: 4000, Call: 7, Return: 8, Tick: TickAdvance, Group: "g", Releases: []int{2}},
		{ID: 4, Client: 2, Name: "coordinator", Conn: Conn{ID: 2}, At: 4000, Call: 9, Return: 10, Tick: TickDisconnect, Group: "g"},
		{ID: 5, Client: 2, Name: "coordinator", At: 4500, Call: 11, Return: 12, Restart: true},
	}
}

// A history with parked operations and ticks is written in the current
// schema and read back the same, operation for operation; one without is
// written in the first schema, as every file before parked operations
// existed, and both schemas are read.
func TestParkedHistoryRoundTrip(t *testing.T) {
	p := plan.Plan{Rounds: 10, RoundMs: 500, SessionTimeoutMs: 6000, RequestTimeout: 3, Clients: []plan.ClientPlan{{Name: "c0", Group: "g", HeartbeatVersion: 1}}}
	h := parkedSample()
	if !h.Parks() {
		t.Fatal("the sample parks, Parks says it does not")
	}
	var buf bytes.Buffer
	if err := WriteFile(&buf, FileHeader{Target: "model", Plan: p}, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"schema":"`+Schema+`"`) {
		t.Fatalf("a parked history is written without schema %s:\n%s", Schema, buf.String())
	}
	hdr, back, err := ReadFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Schema != Schema || len(back) != len(h) {
		t.Fatalf("read back schema %q and %d ops", hdr.Schema, len(back))
	}
	for i := range h {
		if !reflect.DeepEqual(back[i], h[i]) {
			t.Errorf("op %d read back as\n%+v\nwant\n%+v", i, back[i], h[i])
		}
	}
	if back[0].HandledAt() != 2 || back[1].HandledAt() != 4 || !back[3].Event() || !back[5].Event() || back[0].Event() {
		t.Errorf("HandledAt %d, %d and Event %v %v %v: want 2, 4 (a parked op's handling, another's return) and events only for ticks and restarts",
			back[0].HandledAt(), back[1].HandledAt(), back[3].Event(), back[5].Event(), back[0].Event())
	}

	plain := History{h[1]}
	plain[0].Releases, plain[0].ID = nil, 0
	buf.Reset()
	if err := WriteFile(&buf, FileHeader{Target: "model", Plan: p}, plain); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"schema":"`+SchemaV1+`"`) || strings.Contains(buf.String(), `"parked"`) {
		t.Fatalf("a history without parked ops must be written in %s, with no parked fields:\n%s", SchemaV1, buf.String())
	}
	if hdr, _, err := ReadFile(bytes.NewReader(buf.Bytes())); err != nil || hdr.Schema != SchemaV1 {
		t.Fatalf("reading a %s file: %v (schema %q)", SchemaV1, err, hdr.Schema)
	}
	bad := strings.Replace(buf.String(), SchemaV1, "ghostcheck.history/v9", 1)
	if _, _, err := ReadFile(strings.NewReader(bad)); err == nil {
		t.Fatal("a file of an unknown schema was read")
	}
}

// The words of a parked operation and a tick say what happened to them.
func TestParkedLabels(t *testing.T) {
	h := parkedSample()
	for _, c := range []struct {
		op   *Op
		want []string
	}{
		{&h[0], []string{"JoinGroup v9 g", "held, then NONE gen=1"}},
		{&h[1], []string{"released ops [0]"}},
		{&h[2], []string{"SyncGroup v5 g", "→ held"}},
		{&h[3], []string{"timers ran (group g)", "released ops [2]"}},
		{&h[4], []string{"connection 2 closed"}},
	} {
		got := Describe(c.op)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("Describe(op %d) = %q, want it to say %q", c.op.ID, got, w)
			}
		}
	}
	if f := Fate(h[0]); !strings.Contains(f, "answered later") {
		t.Errorf("Fate of a released op: %q", f)
	}
	if f := Fate(h[2]); !strings.Contains(f, "held by the coordinator") {
		t.Errorf("Fate of a held op: %q", f)
	}
}
