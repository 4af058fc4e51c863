package history_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
)

// An op's route and a cluster fault's name round-trip through the file
// format; an op written before clusters (no "route", no "fault") reads
// with none.
func TestRouteAndFaultRoundTrip(t *testing.T) {
	from := int32(0)
	ops := []history.Op{
		{ID: 0, Name: "c0", Conn: history.Conn{ID: 1}, At: 50, Call: 1, Return: 2,
			Header:   codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: 1},
			Request:  &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: 1},
			Response: &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m"), MemberEpoch: 1},
			Route: &history.Route{Broker: 2, Steps: []history.RouteStep{{Kind: "coordinator-error", Broker: 0, Code: "NOT_COORDINATOR"},
				{Kind: "retry", Broker: -1, Attempt: 1}, {Kind: "coordinator-found", Broker: 2, From: &from}, {Kind: history.StepNewConnection, Broker: 2}}}},
		{ID: 1, Name: "cluster", At: 100, Call: 3, Return: 4, Restart: true, Fault: "coordinator-move", Note: "coordinators moved"},
	}
	for _, op := range ops {
		b, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		var back history.Op
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Route, op.Route) || back.Fault != op.Fault || back.Restart != op.Restart {
			t.Errorf("op %d: %s read back as route %+v fault %q", op.ID, b, back.Route, back.Fault)
		}
	}
	old := []byte(`{"id":0,"client":0,"name":"c0","conn":1,"host":"","clientId":"c","at":0,"sent":0,"call":1,"return":2,"api":"ApiVersions","header":{"RequestApiKey":18,"RequestApiVersion":3,"CorrelationId":1,"ClientId":"c","ClientInstanceId":null,"UnknownTags":null},"request":{"ClientSoftwareName":"","ClientSoftwareVersion":"","UnknownTags":null}}`)
	var op history.Op
	if err := json.Unmarshal(old, &op); err != nil {
		t.Fatal(err)
	}
	if op.Route != nil || op.Fault != "" {
		t.Errorf("an op written before clusters reads with route %+v, fault %q", op.Route, op.Fault)
	}
	b, _ := json.Marshal(op)
	if bytes.Contains(b, []byte(`"route"`)) || bytes.Contains(b, []byte(`"fault"`)) {
		t.Errorf("an op without a route writes one: %s", b)
	}
}
