package proxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ghostcheck/ghostcheck/codec"
)

func TestParseRates(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
		bad        bool
	}{
		{"none", "none", false},
		{"", "none", false},
		{"drop=5,delay=3", "drop=5,delay=3", false},
		{"uniform=14", "drop=2,delay=2,close=2,coordinator-not-available=2,not-coordinator=1,unknown-member-id=1,fenced-member-epoch=1,rebalance-in-progress=1,illegal-generation=1,fenced-instance-id=1", false},
		{"error=10", "coordinator-not-available=2,not-coordinator=2,unknown-member-id=2,fenced-member-epoch=1,rebalance-in-progress=1,illegal-generation=1,fenced-instance-id=1", false},
		{"fenced-instance-id=5,illegal-generation=5", "illegal-generation=5,fenced-instance-id=5", false},
		{"unknown-member-id=100", "unknown-member-id=100", false},
		{"drop=60,close=50", "", true},
		{"drop", "", true},
		{"drop=x", "", true},
		{"lose=5", "", true},
		{"drop=-1", "", true},
	} {
		r, err := ParseRates(tc.spec)
		if (err != nil) != tc.bad {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if !tc.bad && r.String() != tc.want {
			t.Errorf("%q: %s, want %s", tc.spec, r, tc.want)
		}
	}
}

// A seed gives the same draws; the rates are kept roughly.
func TestRandomFaults(t *testing.T) {
	rates, _ := ParseRates("drop=10,delay=10,unknown-member-id=10")
	draw := func(seed uint64) []Fault {
		f := NewRandomFaults(seed, rates, 50*time.Millisecond)
		var out []Fault
		for i := 0; i < 1000; i++ {
			out = append(out, f.Fault(GroupRequest{N: i}))
		}
		return out
	}
	a, b := draw(3), draw(3)
	counts := map[string]int{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %v then %v from one seed", i, a[i], b[i])
		}
		counts[a[i].String()]++
	}
	for _, k := range []string{"response dropped", "response delayed 50ms", "answered UNKNOWN_MEMBER_ID"} {
		if counts[k] < 60 || counts[k] > 140 {
			t.Errorf("%s %d times in 1000 at 10 %%", k, counts[k])
		}
	}
	if counts[""] < 600 {
		t.Errorf("no fault %d times in 1000 at 70 %%", counts[""])
	}
}

// An injected error answer decodes, with codec and with kmsg, as the
// answer to the request's version: the code where the api puts it, a
// heartbeat's MemberId null and epoch 0, LeaveGroup's UNKNOWN_MEMBER_ID
// per member from v3; LeaveGroup has no FENCED_MEMBER_EPOCH to answer.
func TestErrorResponseEveryVersion(t *testing.T) {
	codes := []codec.ErrorCode{codec.CoordinatorNotAvailable, codec.NotCoordinator, codec.UnknownMemberID, codec.FencedMemberEpoch}
	for v := int16(0); v <= 1; v++ {
		for _, code := range codes {
			h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: v, CorrelationId: 42}
			frame := errorResponse(h, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: 3}, code)
			rh, m, err := codec.DecodeResponse(frame[4:], codec.ConsumerGroupHeartbeat, v, codec.DecodeOptions{Strict: true})
			if err != nil || rh.CorrelationId != 42 {
				t.Fatalf("heartbeat v%d %v: %v", v, code, err)
			}
			r := m.(*codec.ConsumerGroupHeartbeatResponse)
			if r.ErrorCode != code || r.MemberId.Valid || r.MemberEpoch != 0 || r.HeartbeatIntervalMs != 0 || r.Assignment != nil {
				t.Errorf("heartbeat v%d %v: %+v", v, code, r)
			}
			k := kmsg.NewPtrConsumerGroupHeartbeatResponse()
			k.SetVersion(v)
			if err := k.ReadFrom(frame[4+4+1:]); err != nil || k.ErrorCode != int16(code) {
				t.Errorf("kmsg reads heartbeat v%d %v: %v %d", v, code, err, k.ErrorCode)
			}
		}
	}
	for v := int16(0); v <= 5; v++ {
		for _, code := range codes {
			h := &codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: v, CorrelationId: 7}
			req := &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m"}
			if v >= 3 {
				req.MemberId, req.Members = "", []codec.LeaveGroupMember{{MemberId: "m", GroupInstanceId: codec.Str("i")}, {MemberId: "n"}}
			}
			frame := errorResponse(h, req, code)
			if code == codec.FencedMemberEpoch {
				if frame != nil {
					t.Errorf("LeaveGroup v%d answered FENCED_MEMBER_EPOCH", v)
				}
				continue
			}
			_, m, err := codec.DecodeResponse(frame[4:], codec.LeaveGroup, v, codec.DecodeOptions{Strict: true})
			if err != nil {
				t.Fatalf("LeaveGroup v%d %v: %v", v, code, err)
			}
			r := m.(*codec.LeaveGroupResponse)
			perMember := code == codec.UnknownMemberID && v >= 3
			switch {
			case perMember && (r.ErrorCode != codec.None || len(r.Members) != 2 || r.Members[0].ErrorCode != code || r.Members[0].GroupInstanceId != codec.Str("i") || r.Members[1].MemberId != "n"):
				t.Errorf("LeaveGroup v%d %v: %+v", v, code, r)
			case !perMember && (r.ErrorCode != code || len(r.Members) != 0):
				t.Errorf("LeaveGroup v%d %v: %+v", v, code, r)
			}
		}
	}
	for _, code := range []codec.ErrorCode{codec.RebalanceInProgress, codec.IllegalGeneration, codec.FencedInstanceID} {
		if errorResponse(&codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1}, &codec.ConsumerGroupHeartbeatRequest{}, code) != nil ||
			errorResponse(&codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 3}, &codec.LeaveGroupRequest{}, code) != nil {
			t.Errorf("a ConsumerGroupHeartbeat or LeaveGroup without an instance answered %v", code)
		}
	}
	if errorResponse(&codec.RequestHeader{RequestApiKey: codec.APIKey(8)}, nil, codec.NotCoordinator) != nil {
		t.Error("an answer for an api codec does not encode")
	}
	if !strings.Contains(Fault{Kind: AnswerError, Code: codec.NotCoordinator}.String(), "NOT_COORDINATOR") {
		t.Error("a fault's words")
	}
}

// An injected error answer to a classic request decodes, with codec
// (strictly) and with kmsg, as the answer to every version of its api:
// the code, a JoinGroup's generation -1; the codes an api does not answer
// (ILLEGAL_GENERATION to a JoinGroup, FENCED_MEMBER_EPOCH to any, and
// FENCED_INSTANCE_ID to a request naming no instance) are refused.
func TestClassicErrorResponseEveryVersion(t *testing.T) {
	codes := []codec.ErrorCode{codec.CoordinatorNotAvailable, codec.NotCoordinator, codec.UnknownMemberID,
		codec.RebalanceInProgress, codec.IllegalGeneration, codec.FencedInstanceID, codec.FencedMemberEpoch}
	for _, api := range []struct {
		key      codec.APIKey
		max      int16
		req      func(inst codec.NullableString) codec.Message
		answers  func(codec.ErrorCode) bool
		kmsgRead func(v int16, b []byte) (int16, error)
	}{
		{codec.JoinGroup, 9, func(inst codec.NullableString) codec.Message {
			return &codec.JoinGroupRequest{GroupId: "g", MemberId: "m", GroupInstanceId: inst}
		}, func(c codec.ErrorCode) bool { return c != codec.IllegalGeneration && c != codec.FencedMemberEpoch },
			func(v int16, b []byte) (int16, error) {
				k := kmsg.NewPtrJoinGroupResponse()
				k.SetVersion(v)
				err := k.ReadFrom(b)
				if err == nil && k.Generation != -1 {
					return 0, fmt.Errorf("generation %d", k.Generation)
				}
				return k.ErrorCode, err
			}},
		{codec.SyncGroup, 5, func(inst codec.NullableString) codec.Message {
			return &codec.SyncGroupRequest{GroupId: "g", MemberId: "m", GroupInstanceId: inst}
		}, func(c codec.ErrorCode) bool { return c != codec.FencedMemberEpoch },
			func(v int16, b []byte) (int16, error) {
				k := kmsg.NewPtrSyncGroupResponse()
				k.SetVersion(v)
				return k.ErrorCode, k.ReadFrom(b)
			}},
		{codec.Heartbeat, 4, func(inst codec.NullableString) codec.Message {
			return &codec.HeartbeatRequest{GroupId: "g", MemberId: "m", GroupInstanceId: inst}
		}, func(c codec.ErrorCode) bool { return c != codec.FencedMemberEpoch },
			func(v int16, b []byte) (int16, error) {
				k := kmsg.NewPtrHeartbeatResponse()
				k.SetVersion(v)
				return k.ErrorCode, k.ReadFrom(b)
			}},
	} {
		for v := int16(0); v <= api.max; v++ {
			for _, code := range codes {
				for _, inst := range []codec.NullableString{{}, codec.Str("i")} {
					h := &codec.RequestHeader{RequestApiKey: api.key, RequestApiVersion: v, CorrelationId: 9}
					frame := errorResponse(h, api.req(inst), code)
					want := api.answers(code) && (code != codec.FencedInstanceID || inst.Valid)
					if (frame != nil) != want {
						t.Errorf("%v v%d %v instance %v: answered %v, want %v", api.key, v, code, inst, frame != nil, want)
						continue
					}
					if frame == nil {
						continue
					}
					_, m, err := codec.DecodeResponse(frame[4:], api.key, v, codec.DecodeOptions{Strict: true})
					if err != nil {
						t.Fatalf("%v v%d %v: %v", api.key, v, code, err)
					}
					if got, _ := codec.GroupErrorCode(m); got != code {
						t.Errorf("%v v%d: code %v, want %v", api.key, v, got, code)
					}
					hdr := 4 + 4
					if hv, _ := codec.ResponseHeaderVersion(api.key, v); hv >= 1 {
						hdr++
					}
					if got, err := api.kmsgRead(v, frame[hdr:]); err != nil || got != int16(code) {
						t.Errorf("kmsg reads %v v%d %v: %v %d", api.key, v, code, err, got)
					}
				}
			}
		}
	}
}
