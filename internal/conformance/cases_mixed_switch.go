package conformance

import (
	"fmt"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A member that changes protocol (A7.3), and the upgrade a classic
// group's protocol type forbids (A7.4): what a client sees of the member's
// protocol afterwards, and of the classic group the join leaves alone.

// casesMixedSwitch: A7.3, and A7.4's refusal.
func casesMixedSwitch() []Case {
	return []Case{
		{Name: "A7.3/classic-member-switches", Source: srcKafka40Mixed, Rule: "a classic member's ConsumerGroupHeartbeat at its epoch, under its member id: NONE, and it is a consumer-protocol member from then on: its classic Heartbeat UNKNOWN_MEMBER_ID (ConsumerGroupDescribe v1 lists it as a consumer member)", run: inSessions(caseMixedClassicMemberSwitches)},
		{Name: "A7.3/consumer-replaces-classic-static", Source: srcKafka40Mixed, Rule: "a ConsumerGroupHeartbeat static join naming the instance of a live classic member: NONE (no UNRELEASED_INSTANCE_ID), the joiner listed in its place", run: inSessions(caseMixedConsumerReplacesClassicStatic)},
		{Name: "A7.4/upgrade-refused", Source: srcKafka40Mixed, Rule: "a ConsumerGroupHeartbeat join to a Stable classic group of protocol type \"connect\": GROUP_ID_NOT_FOUND, and the classic group goes on (its member's Heartbeat NONE)", run: judged(caseMixedUpgradeRefused)},
	}
}

func caseMixedClassicMemberSwitches(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	r := m.c.hb(p.hbv(), keepalive(c.group, m.id, m.gen))
	obs := fmt.Sprintf("the classic member's ConsumerGroupHeartbeat at %d: %s", m.gen, hbString(r))
	if r.ErrorCode != codec.None {
		return fail(obs, "NONE")
	}
	if r.MemberEpoch > 0 {
		m.gen = r.MemberEpoch
	}
	e := m.heartbeat()
	obs += fmt.Sprintf("; its classic Heartbeat at %d: %s", m.gen, e)
	if e != codec.UnknownMemberID {
		return fail(obs, "UNKNOWN_MEMBER_ID: the member uses the consumer protocol now")
	}
	if p.max(codec.ConsumerGroupDescribe) < 1 {
		return pass(obs)
	}
	d := c.c.describe(c.group)
	dm, listed := describedMember(d, m.id)
	obs += fmt.Sprintf("; %s, its MemberType %d", describeString(d), dm.MemberType)
	return want(listed && dm.MemberType == codec.MemberTypeConsumer, obs, "listed as a consumer member (MemberType 1)")
}

func caseMixedConsumerReplacesClassicStatic(p *probe) verdict {
	p.needsMixed()
	p.needsJoin(5, "KIP-345")
	c := p.consumerMember(p.id("g"))
	inst := p.id("i")
	m := p.mixedMember(c, inst, true)
	id := p.id("m")
	r := c.c.hb(p.hbv(), static(p.joinReq(c.group, id), inst))
	if r.MemberId.Valid {
		id = r.MemberId.Value
	}
	obs := "the static join: " + hbString(r)
	if r.ErrorCode != codec.None {
		return fail(obs, "NONE: a classic holder is replaced at once")
	}
	d := c.c.describeFor(c.group, true, obs, "")
	ids := members(d)
	_, joined := ids[id]
	_, holder := ids[m.id]
	obs += "; " + describeString(d)
	return want(joined && !holder, obs, "the joiner listed, the classic holder gone")
}

// caseMixedUpgradeRefused makes a classic group of one member of protocol
// type "connect" (its metadata and assignment still the consumer
// protocol's, so that only the type forbids the upgrade), Stable, and
// sends a ConsumerGroupHeartbeat join to it.
func caseMixedUpgradeRefused(p *probe) verdict {
	p.needsMixed()
	m := p.member(p.id("g"), "")
	req := m.joinReq()
	req.ProtocolType = "connect"
	j, obs := m.joinFollowingID(req)
	if j.ErrorCode != codec.None || j.Leader != m.id {
		return fail("the setup's "+obs, "NONE, leading its group of one")
	}
	sreq := m.syncReq([]codec.SyncGroupRequestAssignment{{MemberId: m.id, Assignment: assignmentFor(m.id)}})
	sreq.ProtocolType = codec.Str("connect")
	if s := m.c.do(codec.SyncGroup, p.sv(), sreq).(*codec.SyncGroupResponse); s.ErrorCode != codec.None {
		return fail("the setup's SyncGroup: "+s.ErrorCode.String(), "NONE")
	}
	synced := time.Now()
	r, _ := p.upgradeJoin(p.conn(), m.group, false)
	obs = "a Stable connect group of one; the ConsumerGroupHeartbeat join: " + hbString(r)
	e := m.heartbeat()
	obs += "; the classic member's Heartbeat " + e.String()
	if r.ErrorCode == codec.None && e == codec.None {
		notMixed(obs + ": the classic group went on beside the consumer group the join made")
	}
	if ok := r.ErrorCode == codec.GroupIDNotFound && e == codec.None; !ok && time.Since(synced) >= p.peer.ClassicSessionTimeout {
		// The member's session may have ended, rightly, leaving an
		// empty group the join replaces.
		return tooSlowTo(fmt.Sprintf("the Heartbeat came %v after the SyncGroup, as long as the member's session: %s", time.Since(synced).Round(time.Millisecond), obs))
	}
	return want(r.ErrorCode == codec.GroupIDNotFound && e == codec.None, obs, "GROUP_ID_NOT_FOUND, the classic member's Heartbeat NONE")
}
