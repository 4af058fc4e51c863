package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/model"
)

// startGroup serves a coordinator whose group "orders" holds one static
// member (instance "host-1"), joined directly on the coordinator.
func startGroup(t *testing.T, maxVersions map[codec.APIKey]int16) string {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 4}},
		SessionTimeoutMs:    30000,
		HeartbeatIntervalMs: 1000,
		MaxVersions:         maxVersions,
	})
	h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: 1, ClientId: codec.Str("billing-1")}
	join := &codec.ConsumerGroupHeartbeatRequest{GroupId: "orders", MemberId: "member-1", InstanceId: codec.Str("host-1"),
		RebalanceTimeoutMs: 10000, SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	resp, err := coord.Handle(impl.Conn{ID: 1, Host: "/127.0.0.1"}, h, join)
	if err != nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.None {
		t.Fatalf("setup join: %v %+v", err, resp)
	}
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

func TestMembersUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"members"}, 2, "usage: ghostcheck members list"},
		{[]string{"members", "-h"}, 0, "usage: ghostcheck members list"},
		{[]string{"members", "show"}, 2, `unknown subcommand "show"`},
		{[]string{"members", "list"}, 2, "--bootstrap and --group are required"},
		{[]string{"members", "list", "--bootstrap", "127.0.0.1:1"}, 2, "--bootstrap and --group are required"},
		{[]string{"members", "list", "--bootstrap", "127.0.0.1:1", "--group", "g", "extra"}, 2, "required"},
		{[]string{"members", "remove", "--bootstrap", "127.0.0.1:1", "--group", "g"}, 2, "--instance-id or --member-id is required"},
		{[]string{"members", "remove", "--bootstrap", "127.0.0.1:1", "--group", "g", "--instance-id", " , "}, 2, "--instance-id or --member-id is required"},
		{[]string{"members", "remove", "--bootstrap", "127.0.0.1:1", "--group", "g", "--member-id", " "}, 2, "--instance-id or --member-id is required"},
		{[]string{"members", "remove", "-h"}, 0, "-member-id"},
		{[]string{"members", "list", "-h"}, 0, "-bootstrap"},
		{[]string{"members", "list", "--nope"}, 2, "flag provided but not defined"},
	} {
		code, out, errOut := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr lacks %q:\n%s", tc.args, code, tc.code, out, tc.want, errOut)
		}
	}
}

func TestMembersList(t *testing.T) {
	addr := startGroup(t, nil)
	code, out, errOut := run(t, "", "members", "list", "--bootstrap", addr, "--group", "orders")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"group orders:", "1 members", "member-1", "host-1", "billing-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "", "members", "list", "--bootstrap", addr, "--group", "orders", "--json")
	var g struct{ GroupID string }
	if code != 0 || json.Unmarshal([]byte(out), &g) != nil || g.GroupID != "orders" {
		t.Errorf("list --json: exit %d:\n%s", code, out)
	}
	if code, _, errOut := run(t, "", "members", "list", "--bootstrap", addr, "--group", "nobody"); code != 1 || !strings.Contains(errOut, "ghostcheck members list:") {
		t.Errorf("list of a missing group: exit %d, want 1: %s", code, errOut)
	}
}

func TestMembersRemove(t *testing.T) {
	addr := startGroup(t, nil)
	// One instance held, one unknown: the held one goes, the command exits 1
	// because not every member was removed.
	code, out, errOut := run(t, "", "members", "remove", "--bootstrap", addr, "--group", "orders", "--instance-id", "host-1,host-9", "--reason", "decommissioned")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s\n%s", code, out, errOut)
	}
	for _, want := range []string{"LeaveGroup v5 to group orders: 1 of 2 removed", "host-1", "member-1", "NONE", "host-9", "UNKNOWN_MEMBER_ID — "} {
		if !strings.Contains(out, want) {
			t.Errorf("remove lacks %q:\n%s", want, out)
		}
	}
	// The group is now empty: removing the same instance again fails.
	code, out, _ = run(t, "", "members", "remove", "--bootstrap", addr, "--group", "orders", "--instance-id", "host-1", "--json")
	var r struct {
		LeaveGroupVersion int
		Members           []struct{ Error string }
	}
	if code != 1 || json.Unmarshal([]byte(out), &r) != nil || r.LeaveGroupVersion != 5 || len(r.Members) != 1 || r.Members[0].Error != "UNKNOWN_MEMBER_ID" {
		t.Errorf("second remove --json: exit %d:\n%s", code, out)
	}
}

func TestMembersRemoveAllExitsZero(t *testing.T) {
	addr := startGroup(t, nil)
	if code, out, errOut := run(t, "", "members", "remove", "--bootstrap", addr, "--group", "orders", "--instance-id", "host-1"); code != 0 || !strings.Contains(out, "1 of 1 removed") {
		t.Fatalf("exit %d, want 0:\n%s%s", code, out, errOut)
	}
}

// Below LeaveGroup v3 removal by instance id is impossible: nothing is sent
// and the command says so.
func TestMembersRemoveNeedsV3(t *testing.T) {
	addr := startGroup(t, map[codec.APIKey]int16{codec.LeaveGroup: 2})
	code, _, errOut := run(t, "", "members", "remove", "--bootstrap", addr, "--group", "orders", "--instance-id", "host-1")
	if code != 1 || !strings.Contains(errOut, "nothing was sent.") {
		t.Fatalf("exit %d, want 1 with 'nothing was sent.': %s", code, errOut)
	}
	if code, out, _ := run(t, "", "members", "list", "--bootstrap", addr, "--group", "orders"); code != 0 || !strings.Contains(out, "member-1") {
		t.Errorf("the member must still be there:\n%s", out)
	}
}

// remove --member-id removes any member by its member id (Kafka 4.0+),
// repeated and beside --instance-id; a member id is not cut at commas.
func TestMembersRemoveByMemberID(t *testing.T) {
	addr := startGroup(t, nil)
	code, out, errOut := run(t, "", "members", "remove", "--bootstrap", addr, "--group", "orders", "--member-id", "member-1", "--member-id", "no,such,member", "--instance-id", "host-9")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (two of three not removed): %s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"LeaveGroup v5 to group orders: 1 of 3 removed",
		"host-9                   -                                        UNKNOWN_MEMBER_ID — ",
		"-                        member-1                                 NONE\n",
		"-                        no,such,member                           UNKNOWN_MEMBER_ID — ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("remove lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := run(t, "", "members", "list", "--bootstrap", addr, "--group", "orders"); code != 0 || strings.Contains(out, "member-1") {
		t.Errorf("member-1 must be gone:\n%s", out)
	}
}

// Below LeaveGroup v3 a member id is removed with a v0-v2 request of its
// own, and the output says so.
func TestMembersRemoveByMemberIDBelowV3(t *testing.T) {
	addr := startGroup(t, map[codec.APIKey]int16{codec.LeaveGroup: 2})
	code, out, errOut := run(t, "", "members", "remove", "--bootstrap", addr, "--group", "orders", "--member-id", "member-1", "--json")
	var r struct {
		LeaveGroupVersion int
		Members           []struct{ MemberID, Error string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.LeaveGroupVersion != 2 || len(r.Members) != 1 || r.Members[0].Error != "NONE" || r.Members[0].MemberID != "member-1" {
		t.Fatalf("remove --member-id at v2: exit %d, want 0:\n%s%s", code, out, errOut)
	}
	addr = startGroup(t, map[codec.APIKey]int16{codec.LeaveGroup: 2})
	code, out, _ = run(t, "", "members", "remove", "--bootstrap", addr, "--group", "orders", "--member-id", "member-1", "--member-id", "gone")
	if code != 1 || !strings.Contains(out, "LeaveGroup v2 to group orders (one request per member id): 1 of 2 removed") {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
}
