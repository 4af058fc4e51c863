package driver

// DescribeAgrees: a target that shows its whole state (Snapshotter) is
// also described by the observer, and the two views must agree. Seen
// through ConsumerGroupDescribe (rules.SnapshotFromDescribe), a group is
// what `ghostcheck check` judges a broker reached by address by: a
// Describe that hides a parked member, or shows an epoch the coordinator
// does not hold, would blind that check to the very ghosts it looks for.
// The run compares them only when both are of the same instant: right
// after the target answered the Describe, before anything else reaches it
// (so never under parallel delivery, where other requests run beside it).

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// checkDescribe holds resp, the target's answer to a Describe it has just
// handled, to the target's snapshot of that instant. The caller holds the
// driver's mu and has not delivered anything since.
func (o *observer) checkDescribe(resp *codec.ConsumerGroupDescribeResponse) {
	d := o.d
	if o.snap == nil || d.plan.Parallel {
		return
	}
	groups := o.snap.Snapshot()
	if d.canaries {
		o.describeCanary(resp, groups)
	}
	for i := range resp.Groups {
		dg := &resp.Groups[i]
		h, holds := heldGroup(groups, dg.GroupId)
		var what string
		switch dg.ErrorCode {
		case codec.None:
			switch {
			case !holds:
				what = "is described, but the coordinator holds no such group"
			case describedAsHeld(dg, h):
			default: // built again from dg alone, to say how they differ
				shown := rules.SnapshotFromDescribe(&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{*dg}})
				what = describeDisagreement(shown[0], h)
			}
		case codec.GroupIDNotFound:
			if holds && h.Kind != rules.KindClassic { // a classic group is not found by it (A6.4)
				what = fmt.Sprintf("is described as GROUP_ID_NOT_FOUND, but the coordinator holds it with %d members at epoch %d", len(h.Members), h.Epoch)
			}
		}
		if what != "" {
			d.violate(&rules.Violation{Rule: string(rules.RuleDescribeAgrees), Detail: fmt.Sprintf("ConsumerGroupDescribe at %d ms: group %q %s", d.at, dg.GroupId, what)})
		}
	}
}

// heldGroup finds the group id in groups (in group id order, as
// Snapshotter and rules.SnapshotFromDescribe give them).
func heldGroup(groups []rules.GroupSnapshot, id string) (rules.GroupSnapshot, bool) {
	i, ok := slices.BinarySearchFunc(groups, id, func(g rules.GroupSnapshot, id string) int { return cmp.Compare(g.GroupID, id) })
	if !ok {
		return rules.GroupSnapshot{}, false
	}
	return groups[i], true
}

// describedAsHeld reports that dg shows held exactly, listing members,
// subscribed names and partitions in the order the snapshot keeps them
// (member id, name, then topic and partition), as a coordinator that
// describes in order does: the common case, judged without building the
// group again from dg. false means only that the order differs or the
// views disagree; describeDisagreement, which sorts, then decides.
func describedAsHeld(dg *codec.DescribedGroup, held rules.GroupSnapshot) bool {
	if dg.GroupEpoch != held.Epoch || len(dg.Members) != len(held.Members) {
		return false
	}
	for i := range dg.Members {
		s, h := &dg.Members[i], &held.Members[i]
		if s.MemberId != h.MemberID || s.InstanceId.Value != h.InstanceID || s.MemberEpoch != h.Epoch ||
			s.SubscribedTopicRegex != h.SubscribedTopicRegex || !slices.Equal(s.SubscribedTopicNames, h.SubscribedTopicNames) ||
			!assignmentIs(s.Assignment, h.Assigned) ||
			dg.AssignmentEpoch == dg.GroupEpoch && !assignmentIs(s.TargetAssignment, h.Target) {
			return false
		}
	}
	return true
}

// assignmentIs reports that a lists exactly ps, in ps's order.
func assignmentIs(a codec.DescribedAssignment, ps []rules.TopicPartition) bool {
	i := 0
	for _, t := range a.TopicPartitions {
		for _, p := range t.Partitions {
			if i == len(ps) || ps[i].Topic != t.TopicName || ps[i].Partition != p {
				return false
			}
			i++
		}
	}
	return i == len(ps)
}

// describeDisagreement says how shown (a group as Describe showed it) and
// held (the coordinator's snapshot of it) differ in what Describe can
// show, or "" when they agree. Pending revocations are not shown, and a
// target only while the assignment epoch is the group epoch.
func describeDisagreement(shown, held rules.GroupSnapshot) string {
	if shown.Epoch != held.Epoch {
		return fmt.Sprintf("is shown at group epoch %d, the coordinator holds epoch %d", shown.Epoch, held.Epoch)
	}
	byID := map[string]rules.MemberSnapshot{}
	for _, m := range held.Members {
		byID[m.MemberID] = m
	}
	for _, s := range shown.Members {
		h, ok := byID[s.MemberID]
		if !ok {
			return fmt.Sprintf("shows member %s, which the coordinator does not hold", s.MemberID)
		}
		delete(byID, s.MemberID)
		switch {
		case s.InstanceID != h.InstanceID:
			return fmt.Sprintf("shows member %s with instance id %q, the coordinator holds %q", s.MemberID, s.InstanceID, h.InstanceID)
		case s.Epoch != h.Epoch:
			return fmt.Sprintf("shows member %s at epoch %d, the coordinator holds %d", s.MemberID, s.Epoch, h.Epoch)
		case !slices.Equal(s.SubscribedTopicNames, h.SubscribedTopicNames) || s.SubscribedTopicRegex != h.SubscribedTopicRegex:
			return fmt.Sprintf("shows member %s subscribed to %v / regex %v, the coordinator holds %v / %v", s.MemberID,
				s.SubscribedTopicNames, s.SubscribedTopicRegex, h.SubscribedTopicNames, h.SubscribedTopicRegex)
		case !slices.Equal(s.Assigned, h.Assigned):
			return fmt.Sprintf("shows member %s assigned %v, the coordinator holds %v", s.MemberID, s.Assigned, h.Assigned)
		case s.Target != nil && !slices.Equal(s.Target, h.Target):
			return fmt.Sprintf("shows member %s with target %v, the coordinator holds %v", s.MemberID, s.Target, h.Target)
		}
	}
	for _, m := range held.Members {
		if _, hidden := byID[m.MemberID]; hidden {
			return fmt.Sprintf("does not show member %s (epoch %d), which the coordinator holds", m.MemberID, m.Epoch)
		}
	}
	return ""
}

// describeCanary judges, in the histories the canaries run in (canaryEvery),
// every group of resp the long way too, through rules.SnapshotFromDescribe
// and describeDisagreement, which sort: where describedAsHeld finds an
// in-order answer as held, the long way must find no disagreement, else
// the short way hides one, a harness error.
func (o *observer) describeCanary(resp *codec.ConsumerGroupDescribeResponse, groups []rules.GroupSnapshot) {
	d := o.d
	for i := range resp.Groups {
		dg := &resp.Groups[i]
		h, holds := heldGroup(groups, dg.GroupId)
		if dg.ErrorCode != codec.None || !holds || !describedAsHeld(dg, h) {
			continue
		}
		shown := rules.SnapshotFromDescribe(&codec.ConsumerGroupDescribeResponse{Groups: resp.Groups[i : i+1]})
		if what := describeDisagreement(shown[0], h); what != "" {
			d.harness("DescribeAgrees: group %q's Describe at %d ms is as the snapshot judged in order, but judged through rules.SnapshotFromDescribe it %s", dg.GroupId, d.at, what)
		}
	}
}
