package driver

// The kinds of a migrating plan's groups as the target's answers tell them,
// for a target that shows no snapshot (a broker over TCP). Such a target's
// conversions (docs/PROTOCOL.md A7.4, A7.5) happen out of the driver's
// sight, but the answers it gives, read in the order it handled them, say
// which kind each group was at that moment: a classic member's JoinGroup
// answered at once with no leader is a consumer group's (A7.1 step 8), one
// that names a leader a classic group's join phase completing (B8.7), a
// ConsumerGroupHeartbeat answered at an epoch a consumer group's, a
// ConsumerGroupDescribe or DescribeGroups that answers for a group one of
// its own kind (B7, B8.13). The observer notes each such answer's kind
// (kindSeen, as it notes a snapshot's), and a classic request to a group
// last told a consumer group feeds none of the classic trackers, as with
// a snapshot (mixed.go).
//
// What the answers cannot tell: a conversion by the target's timers (a
// downgrade when the last consumer-protocol member's session ends) is
// noted only at the next answer that shows the new kind, so it is noted
// late, which starts the members' sessions late (more grace, never less),
// and meanwhile the classic answers of a group that is classic again feed
// no classic tracker (fewer checks, never a false alarm). An empty group
// replaced by one of the other kind (A6.4) is seen the same way; a
// JoinGroup with no member id that is not answered as a consumer group's
// classic member may have replaced an empty consumer group unseen, so the
// consumer group's epochs are forgotten then, as in every plan. Nothing is
// carried across a conversion (carry): the answers show no conversion's
// moment.

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// toldKind is the kind of its group that resp, the answer to req, shows
// the group was when the target answered: ok false when the answer does
// not show it (an error, a SyncGroup or Heartbeat, which both kinds
// answer alike, a leave, after which the group may have converted).
func toldKind(req, resp codec.Message) (group string, kind rules.GroupKind, ok bool) {
	switch q := req.(type) {
	case *codec.JoinGroupRequest:
		j, _ := resp.(*codec.JoinGroupResponse)
		if j == nil || j.ErrorCode != codec.None {
			return "", 0, false
		}
		if j.Leader == "" {
			return q.GroupId, rules.KindConsumer, true
		}
		return q.GroupId, rules.KindClassic, true
	case *codec.ConsumerGroupHeartbeatRequest:
		h, _ := resp.(*codec.ConsumerGroupHeartbeatResponse)
		if h == nil || h.ErrorCode != codec.None || h.MemberEpoch < 0 {
			return "", 0, false
		}
		return q.GroupId, rules.KindConsumer, true
	}
	return "", 0, false
}

// tell notes what resp, the target's answer at time at to request r,
// tells of the kind of r's group (a target with no snapshot, in a plan
// that migrates). A JoinGroup with no member id that resp does not show
// joining a consumer group may have replaced an empty one (A6.4): its
// epochs are forgotten.
func (cj *classicJudge) tell(r *request, resp codec.Message, at int64) {
	g, kind, ok := toldKind(r.req, resp)
	if ok {
		cj.kindSeen(&rules.GroupSnapshot{GroupID: g, Kind: kind}, at)
	}
	if j, isJoin := r.req.(*codec.JoinGroupRequest); isJoin && j.MemberId == "" && !(ok && kind == rules.KindConsumer) {
		if jr, _ := resp.(*codec.JoinGroupResponse); jr != nil && jr.ErrorCode != codec.InvalidGroupID && jr.ErrorCode != codec.InvalidSessionTimeout {
			cj.o.epochs.Forget(j.GroupId)
		}
	}
}

// toldDescribed notes the kinds resp, a Describe's answer at time at,
// shows (a target with no snapshot, in a plan that migrates): a group
// ConsumerGroupDescribe answers is a consumer group, and one
// DescribeGroups answers alive a classic group (each answers a group of
// the other kind as a missing one, A7.1/describe-mixed-group).
func (cj *classicJudge) toldDescribed(resp codec.Message, at int64) {
	switch r := resp.(type) {
	case *codec.ConsumerGroupDescribeResponse:
		for i := range r.Groups {
			if g := &r.Groups[i]; g.ErrorCode == codec.None {
				cj.kindSeen(&rules.GroupSnapshot{GroupID: g.GroupId, Kind: rules.KindConsumer}, at)
				cj.describedNow(g.GroupId)
			}
		}
	case *codec.DescribeGroupsResponse:
		for i := range r.Groups {
			if g := &r.Groups[i]; g.ErrorCode == codec.None && g.GroupState != "Dead" {
				cj.kindSeen(&rules.GroupSnapshot{GroupID: g.GroupId, Kind: rules.KindClassic}, at)
				cj.describedNow(g.GroupId)
			}
		}
	}
}

// describedNow notes that a Describe of the round answered for group,
// with the count of its changes of kind so far, unless one already did.
func (cj *classicJudge) describedNow(group string) {
	m := cj.mixed
	if _, ok := m.described[group]; !ok {
		m.described[group] = m.changes[group]
	}
}

// fresh drops from groups, the round's described groups, those that
// changed kind after a Describe of the round answered for them, and
// starts the next round's count. Such a Describe shows the group as it
// was before the change (a classic group an upgrade has since made a
// consumer group, with the classic members its ledger no longer knows):
// judged on it, the new kind's trackers would take the old kind's
// members and epochs for their own. The group is judged again at the
// next round's Describe.
func (cj *classicJudge) fresh(groups []rules.GroupSnapshot) []rules.GroupSnapshot {
	m := cj.mixed
	groups = slices.DeleteFunc(groups, func(g rules.GroupSnapshot) bool {
		n, ok := m.described[g.GroupID]
		return ok && n != m.changes[g.GroupID]
	})
	clear(m.described)
	return groups
}

// toldConsumer reports whether group was last told a consumer group.
func (cj *classicJudge) toldConsumer(group string) bool {
	k, ok := cj.mixed.kinds[group]
	return ok && k == rules.KindConsumer
}
