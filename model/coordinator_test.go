package model_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// everything is the ApiVersions list of the model's scope (A4, A6.5), by
// key.
func everything() []codec.ApiVersionsKey {
	return []codec.ApiVersionsKey{
		{ApiKey: codec.JoinGroup, MinVersion: 0, MaxVersion: 9},
		{ApiKey: codec.Heartbeat, MinVersion: 0, MaxVersion: 4},
		{ApiKey: codec.LeaveGroup, MinVersion: 0, MaxVersion: 5},
		{ApiKey: codec.SyncGroup, MinVersion: 0, MaxVersion: 5},
		{ApiKey: codec.DescribeGroups, MinVersion: 0, MaxVersion: 6},
		{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: 4},
		{ApiKey: codec.ConsumerGroupHeartbeat, MinVersion: 0, MaxVersion: 1},
		{ApiKey: codec.ConsumerGroupDescribe, MinVersion: 0, MaxVersion: 1},
		{ApiKey: codec.GetTelemetrySubscriptions, MinVersion: 0, MaxVersion: 1},
		{ApiKey: codec.PushTelemetry, MinVersion: 0, MaxVersion: 1},
	}
}

func apiVersionsResponse(code codec.ErrorCode, keys []codec.ApiVersionsKey) *codec.ApiVersionsResponse {
	r := codec.NewApiVersionsResponse()
	r.ErrorCode, r.ApiKeys = code, keys
	return r
}

// ApiVersions v0-v4 (§B7.1, A4).
func TestApiVersions(t *testing.T) {
	good := &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck-model", ClientSoftwareVersion: "1.0"}
	for v := int16(0); v <= 4; v++ {
		t.Run(fmt.Sprintf("v%d lists every api in scope", v), func(t *testing.T) {
			tc := newCoordTest(t)
			tc.want("the whole scope", v, tc.send(v, good), apiVersionsResponse(codec.None, everything()))
		})
	}
	for _, v := range []int16{3, 4} {
		for _, c := range []struct{ name, version string }{
			{"", "1.0"}, {"ghostcheck", ""}, {"-ghost", "1.0"}, {"ghost-", "1.0"}, {"ghost check", "1.0"},
			{"ghost_check", "1.0"}, {"ghost", "1.0-"}, {"ghost", ".1"}, {"ghost", "1.0 beta"},
		} {
			t.Run(fmt.Sprintf("v%d software name %q version %q is INVALID_REQUEST", v, c.name, c.version), func(t *testing.T) {
				tc := newCoordTest(t)
				tc.want("INVALID_REQUEST and no api keys", v,
					tc.send(v, &codec.ApiVersionsRequest{ClientSoftwareName: c.name, ClientSoftwareVersion: c.version}),
					apiVersionsResponse(codec.InvalidRequest, nil))
			})
		}
		for _, c := range []struct{ name, version string }{{"a", "1"}, {"A.b-9", "4.0.0-rc.1"}, {"librdkafka", "2.12.0"}} {
			t.Run(fmt.Sprintf("v%d software name %q version %q is accepted", v, c.name, c.version), func(t *testing.T) {
				tc := newCoordTest(t)
				tc.want("the whole scope", v,
					tc.send(v, &codec.ApiVersionsRequest{ClientSoftwareName: c.name, ClientSoftwareVersion: c.version}),
					apiVersionsResponse(codec.None, everything()))
			})
		}
	}
	t.Run("MaxVersions caps what is advertised and drops an api capped below its minimum", func(t *testing.T) {
		tc := newCoordTest(t, func(c *model.Config) {
			c.MaxVersions = map[codec.APIKey]int16{codec.LeaveGroup: 2, codec.ConsumerGroupHeartbeat: 0, codec.PushTelemetry: -1, codec.ApiVersions: 9,
				codec.JoinGroup: 3, codec.SyncGroup: -1}
		})
		tc.want("an older broker", 3, tc.send(3, good), apiVersionsResponse(codec.None, []codec.ApiVersionsKey{
			{ApiKey: codec.JoinGroup, MinVersion: 0, MaxVersion: 3},
			{ApiKey: codec.Heartbeat, MinVersion: 0, MaxVersion: 4},
			{ApiKey: codec.LeaveGroup, MinVersion: 0, MaxVersion: 2},
			{ApiKey: codec.DescribeGroups, MinVersion: 0, MaxVersion: 6},
			{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: 4},
			{ApiKey: codec.ConsumerGroupHeartbeat, MinVersion: 0, MaxVersion: 0},
			{ApiKey: codec.ConsumerGroupDescribe, MinVersion: 0, MaxVersion: 1},
			{ApiKey: codec.GetTelemetrySubscriptions, MinVersion: 0, MaxVersion: 1},
		}))
	})
	t.Run("UnsupportedApiVersionsResponse is UNSUPPORTED_VERSION with the ApiVersions range, at v0", func(t *testing.T) {
		if d := codectest.WireDiff(0, model.UnsupportedApiVersionsResponse(nil), apiVersionsResponse(codec.UnsupportedVersion,
			[]codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: 4}})); d != "" {
			t.Error(d)
		}
		if d := codectest.WireDiff(0, model.UnsupportedApiVersionsResponse(map[codec.APIKey]int16{codec.ApiVersions: 2}), apiVersionsResponse(codec.UnsupportedVersion,
			[]codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: 2}})); d != "" {
			t.Errorf("capped at v2: %s", d)
		}
	})
}

// Handle serves what it advertises and refuses, changing nothing, what it
// does not (a broker closes the connection then, §B1.1).
func TestHandleRefusesWhatItDoesNotServe(t *testing.T) {
	capped := func(c *model.Config) {
		c.MaxVersions = map[codec.APIKey]int16{codec.LeaveGroup: 2, codec.ConsumerGroupHeartbeat: 0}
	}
	for _, c := range []struct {
		name    string
		key     codec.APIKey
		version int16
		body    codec.Message
	}{
		{"ApiVersions v5", codec.ApiVersions, 5, &codec.ApiVersionsRequest{}},
		{"ConsumerGroupHeartbeat v2", codec.ConsumerGroupHeartbeat, 2, testreq.Join(group1, "m1", rebalanceMs, "a")},
		{"LeaveGroup v3 when capped at v2", codec.LeaveGroup, 3, &codec.LeaveGroupRequest{GroupId: group1}},
		{"ConsumerGroupHeartbeat v1 when capped at v0", codec.ConsumerGroupHeartbeat, 1, testreq.Join(group1, "m1", rebalanceMs, "a")},
		{"a negative version", codec.ConsumerGroupDescribe, -1, &codec.ConsumerGroupDescribeRequest{}},
	} {
		t.Run(c.name+" is ErrUnsupportedRequest", func(t *testing.T) {
			tc := newCoordTest(t, capped)
			h := codec.RequestHeader{RequestApiKey: c.key, RequestApiVersion: c.version, ClientId: codec.Str("first")}
			if _, err := tc.c.Handle(tc.conn, &h, c.body); !errors.Is(err, model.ErrUnsupportedRequest) {
				t.Fatalf("Handle = %v, want ErrUnsupportedRequest", err)
			}
			if _, ok := tc.c.ConnClientID(tc.conn.ID); ok {
				t.Error("a refused request left connection context behind")
			}
			tc.wantNoGroup("nothing created", group1)
		})
	}
	t.Run("a body that does not match the header is an error", func(t *testing.T) {
		tc := newCoordTest(t)
		h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 1}
		if _, err := tc.c.Handle(tc.conn, &h, testreq.Join(group1, "m1", rebalanceMs, "a")); err == nil {
			t.Fatal("Handle accepted a heartbeat body under a LeaveGroup header")
		}
		if _, err := tc.c.Handle(tc.conn, &h, &codec.LeaveGroupResponse{}); err == nil {
			t.Fatal("Handle accepted a response body as a request")
		}
	})
}

// KIP-1313 connection context (A2): the broker remembers the first ClientId
// of each connection (a null one reads as "") and uses it for every later
// request whose ClientId is null; Disconnect forgets it.
func TestConnectionContext(t *testing.T) {
	c := model.NewCoordinator(testConfig())
	conn1 := model.Conn{ID: 1, Host: "/10.0.0.1"}
	conn2 := model.Conn{ID: 2, Host: "/10.0.0.2"}
	corr := int32(0)
	send := func(conn model.Conn, clientID codec.NullableString, req *codec.ConsumerGroupHeartbeatRequest) {
		t.Helper()
		corr++
		h := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: corr,
			ClientId: clientID, ClientInstanceId: codec.SomeUUID(testInstance)}
		resp, err := c.Handle(conn, &h, req)
		if err != nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.None {
			t.Fatalf("%s: %v %+v", req.MemberId, err, resp)
		}
	}
	wantClient := func(what, member, clientID, host string) {
		t.Helper()
		h := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1, ClientId: codec.Str("observer")}
		resp, _ := c.Handle(model.Conn{ID: 99}, &h, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group1}})
		for _, m := range resp.(*codec.ConsumerGroupDescribeResponse).Groups[0].Members {
			if m.MemberId == member {
				if m.ClientId != clientID || m.ClientHost != host {
					t.Errorf("%s: member %s shows ClientId %q ClientHost %q, want %q %q", what, member, m.ClientId, m.ClientHost, clientID, host)
				}
				return
			}
		}
		t.Errorf("%s: member %s not found", what, member)
	}
	wantConn := func(what string, conn uint64, clientID string, known bool) {
		t.Helper()
		got, ok := c.ConnClientID(conn)
		if got != clientID || ok != known {
			t.Errorf("%s: ConnClientID(%d) = %q, %v; want %q, %v", what, conn, got, ok, clientID, known)
		}
	}

	wantConn("a connection that sent nothing is unknown", 1, "", false)
	send(conn1, codec.Str("app-1"), testreq.Join(group1, "m1", rebalanceMs, "a"))
	wantClient("the first request's ClientId", "m1", "app-1", "/10.0.0.1")
	wantConn("remembered", 1, "app-1", true)
	send(conn1, codec.Null, testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2"))
	wantClient("a later null ClientId reads as the connection's first", "m1", "app-1", "/10.0.0.1")

	send(conn1, codec.Str("renamed"), testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2"))
	wantClient("a request that sends its own ClientId is attributed to it", "m1", "renamed", "/10.0.0.1")
	send(conn1, codec.Null, testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2"))
	wantClient("the connection still remembers its first ClientId", "m1", "app-1", "/10.0.0.1")
	wantConn("the first stays remembered", 1, "app-1", true)

	send(conn2, codec.Null, testreq.Join(group1, "m2", rebalanceMs, "b"))
	wantClient("a null ClientId on a connection's first request reads as \"\"", "m2", "", "/10.0.0.2")
	send(conn2, codec.Str("late"), testreq.Heartbeat(group1, "m2", 2, ""))
	send(conn2, codec.Null, testreq.Heartbeat(group1, "m2", 2, ""))
	wantClient("... and stays \"\" for the connection", "m2", "", "/10.0.0.2")
	wantClient("connections do not share context", "m1", "app-1", "/10.0.0.1")

	c.Disconnect(1)
	wantConn("Disconnect forgets the connection", 1, "", false)
	send(conn1, codec.Null, testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2")) // m1 moves to the group's epoch 2
	wantClient("a reconnected connection starts afresh", "m1", "", "/10.0.0.1")
	c.Disconnect(1)
	send(model.Conn{ID: 1, Host: "/10.0.0.9"}, codec.Str("app-1b"), testreq.Heartbeat(group1, "m1", 2, "a0 a1 a2"))
	send(model.Conn{ID: 1, Host: "/10.0.0.9"}, codec.Null, testreq.Heartbeat(group1, "m1", 2, "a0 a1 a2"))
	wantClient("and remembers its own first ClientId and host", "m1", "app-1b", "/10.0.0.9")
}
