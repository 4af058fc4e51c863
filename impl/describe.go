package impl

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Authorized operations on a group when no authorizer restricts them:
// READ(3), DELETE(6), DESCRIBE(8), DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11).
const groupOperations int32 = 1<<3 | 1<<6 | 1<<8 | 1<<10 | 1<<11

// DescribeInto answers a ConsumerGroupDescribe or a DescribeGroups request
// exactly as Handle does (the same effects on the connection's context,
// the same errors, an answer that encodes byte for byte as Handle's at the
// request's version), in resp: a *codec.ConsumerGroupDescribeResponse or a
// *codec.DescribeGroupsResponse, the one of the request's api. Every field
// of resp is written over; its lists and their nested lists are reused
// where they have the room, so that asking again into the same resp
// allocates (almost) nothing: the explorer describes every group after
// every step it explores. resp's earlier contents, nested arrays included,
// are gone, and resp must share no array with anything still read (an
// answer of Handle or DescribeInto qualifies). Where Handle leaves a list
// nil, resp may keep an empty one (the same encoding). On an error resp is
// left as it was; a request held behind another of its connection
// (ErrParked) is answered through Released, in a response of its own.
func (c *Coordinator) DescribeInto(conn Conn, h *codec.RequestHeader, req codec.Message, resp codec.Message) error {
	if h == nil {
		return errors.New("impl: DescribeInto without a request header")
	}
	if req == nil || req.IsResponse() || req.Key() != h.RequestApiKey {
		return fmt.Errorf("impl: request body does not match header %v", h.RequestApiKey)
	}
	ok := false
	switch r := req.(type) {
	case *codec.ConsumerGroupDescribeRequest:
		rs, isCGD := resp.(*codec.ConsumerGroupDescribeResponse)
		ok = r != nil && isCGD && rs != nil
	case *codec.DescribeGroupsRequest:
		rs, isDG := resp.(*codec.DescribeGroupsResponse)
		ok = r != nil && isDG && rs != nil
	default:
		return fmt.Errorf("impl: DescribeInto answers ConsumerGroupDescribe and DescribeGroups, not %v", h.RequestApiKey)
	}
	if !ok {
		return fmt.Errorf("impl: DescribeInto of %v into a %T", h.RequestApiKey, resp)
	}
	_, _, err := c.open(conn, h, req)
	switch {
	case err == errUnserved:
		r, isCGD := req.(*codec.ConsumerGroupDescribeRequest)
		if !isCGD {
			err = ErrUnsupportedRequest // as unservedResponse has no answer for it
			break
		}
		unservedDescribeInto(r, resp.(*codec.ConsumerGroupDescribeResponse))
		err = nil
	case err != nil:
	default:
		switch r := req.(type) {
		case *codec.ConsumerGroupDescribeRequest:
			c.describeInto(h.RequestApiVersion, r, resp.(*codec.ConsumerGroupDescribeResponse))
		case *codec.DescribeGroupsRequest:
			c.describeGroupsInto(h.RequestApiVersion, r, resp.(*codec.DescribeGroupsResponse))
		}
	}
	c.maybeResume()
	return err
}

// describe serves ConsumerGroupDescribe in a response of its own (Handle).
func (c *Coordinator) describe(version int16, r *codec.ConsumerGroupDescribeRequest) *codec.ConsumerGroupDescribeResponse {
	var resp *codec.ConsumerGroupDescribeResponse
	if len(r.GroupIds) == 1 {
		// The response and its one group in one allocation: the explorer
		// describes its group after every step.
		one := &struct {
			resp  codec.ConsumerGroupDescribeResponse
			group [1]codec.DescribedGroup
		}{}
		resp = &one.resp
		resp.Groups = one.group[:0:1]
	} else {
		resp = &codec.ConsumerGroupDescribeResponse{} // Groups made at their number (nil for none)
	}
	c.describeInto(version, r, resp)
	return resp
}

// describeInto serves ConsumerGroupDescribe into resp (DescribeInto). Each
// group is read under its own lock; a request naming several groups is not
// atomic across them.
func (c *Coordinator) describeInto(version int16, r *codec.ConsumerGroupDescribeRequest, resp *codec.ConsumerGroupDescribeResponse) {
	resp.ThrottleTimeMs, resp.UnknownTags = 0, nil
	resp.Groups = resized(resp.Groups, len(r.GroupIds))
	for i, id := range r.GroupIds {
		c.describeGroupInto(version, id, r.IncludeAuthorizedOperations, &resp.Groups[i])
	}
}

// unservedDescribeInto is unservedResponse's answer to a
// ConsumerGroupDescribe, in resp.
func unservedDescribeInto(r *codec.ConsumerGroupDescribeRequest, resp *codec.ConsumerGroupDescribeResponse) {
	resp.ThrottleTimeMs, resp.UnknownTags = 0, nil
	resp.Groups = resized(resp.Groups, len(r.GroupIds))
	for i, id := range r.GroupIds {
		out := &resp.Groups[i]
		*out = codec.DescribedGroup{GroupId: id, ErrorCode: codec.UnsupportedVersion, AuthorizedOperations: codec.AuthorizedOperationsOmitted,
			Members: out.Members[:0]}
	}
}

// resized returns s at length n, in its own array when it has the room;
// else in a new one that keeps s's elements (and through them their
// arrays, for reuse). nil stays nil at length 0.
func resized[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	out := make([]T, n)
	copy(out, s[:cap(s)])
	return out
}

// listPool gives the lists of one answer their arrays: a list goes in the
// array of the list it replaces when that has the room, else it is cut
// from one array made, at the first list that does not fit, at the size
// of every list still to come. An answer made afresh thus makes one array
// per kind of list, and one written over an earlier answer of its shape
// makes none. The lists it cuts are capped, so that no list reaches
// another's elements.
type listPool[T any] struct {
	left int // elements of the lists still to be taken
	buf  []T
}

// take returns a list of n elements (their values are the caller's to
// write), in old's array if it has the room; nil when n is 0 and old nil.
func (p *listPool[T]) take(old []T, n int) []T {
	p.left -= n
	if n <= cap(old) {
		return old[:n]
	}
	if len(p.buf) < n {
		p.buf = make([]T, n+max(p.left, 0))
	}
	out := p.buf[:n:n]
	p.buf = p.buf[n:]
	return out
}

// missingMessage is the error message for id, which names no group of the
// kind asked ("a consumer" or "a classic"), but one of the other kind when
// otherKind: Kafka's, as old when old already says it.
func missingMessage(old codec.NullableString, id string, otherKind bool, kind string) codec.NullableString {
	if !otherKind {
		return reusedMessage(old, msgGroup, id, msgNotFound)
	}
	return reusedMessage(old, msgGroup, id, " is not ", kind, " group.")
}

// reusedMessage is the concatenation of parts, as old when old already is
// it (no string made).
func reusedMessage(old codec.NullableString, parts ...string) codec.NullableString {
	if old.Valid {
		rest := old.Value
		for _, p := range parts {
			if !strings.HasPrefix(rest, p) {
				return codec.Str(strings.Join(parts, ""))
			}
			rest = rest[len(p):]
		}
		if rest == "" {
			return old
		}
	}
	return codec.Str(strings.Join(parts, ""))
}

// describeGroupInto describes group id into out, reusing its lists.
func (c *Coordinator) describeGroupInto(version int16, id string, includeOps bool, out *codec.DescribedGroup) {
	oldMsg, oldMembers := out.ErrorMessage, out.Members
	*out = codec.DescribedGroup{GroupId: id, AuthorizedOperations: codec.AuthorizedOperationsOmitted, Members: oldMembers[:0]}
	if id == "" && !c.mut.Has(MutDescribeEmptyGroupNotFound) { // no trim (A3.3): "  " is a group that does not exist
		out.ErrorCode = codec.InvalidGroupID
		return
	}
	g := c.readGroup(id, kindConsumer) // Describe changes nothing
	if g == nil && c.mut.Has(MutDescribeMissingGroupDead) {
		out.GroupState, out.AssignorName = "Dead", UniformAssignor
		return
	}
	if g == nil {
		out.ErrorCode = codec.GroupIDNotFound
		out.ErrorMessage = missingMessage(oldMsg, id, c.isClassic(id), "a consumer")
		return
	}
	defer g.mu.Unlock()
	out.GroupState = g.stateName()
	out.GroupEpoch = g.epoch
	out.AssignmentEpoch = g.epoch
	out.AssignorName = UniformAssignor
	if includeOps {
		out.AuthorizedOperations = groupOperations
	}
	members := g.sortedMembers()
	ms := resized(oldMembers, len(members)) // nil for none, as before
	// The members' assignments, targets and subscriptions go in the
	// arrays of the answer written over, or in three arrays made at the
	// size of what does not fit there: the explorer describes every group
	// after every step.
	var a describeArrays
	var names listPool[string]
	for _, e := range members {
		if s := g.sideOf(e.mi); s != nil {
			a.parts.left += len(s.assigned) + len(s.target)
			a.topics.left += c.topicsIn(s.assigned) + c.topicsIn(s.target)
		}
		names.left += len(g.subOf(e.mi).names)
	}
	k := 0
	for _, e := range members {
		mi := e.mi
		m := &g.mem[mi]
		if m.epoch == -2 && c.mut.Has(MutDescribeHidesParked) {
			continue
		}
		dm := &ms[k]
		k++
		ck := g.clientOf(mi)
		sub := g.subOf(mi)
		subscribed := names.take(dm.SubscribedTopicNames, len(sub.names)) // nil when the member has none
		copy(subscribed, sub.names)
		assignment, target := dm.Assignment.TopicPartitions, dm.TargetAssignment.TopicPartitions
		*dm = codec.DescribedMember{
			MemberId:             e.id,
			InstanceId:           g.instanceOf(mi),
			RackId:               g.rackOf(mi),
			MemberEpoch:          m.epoch,
			ClientId:             ck.id,
			ClientHost:           ck.host,
			SubscribedTopicNames: subscribed,
			SubscribedTopicRegex: sub.regex,
			MemberType:           codec.MemberTypeUnknown,
		}
		var assigned, targeted []int32
		if s := g.sideOf(mi); s != nil {
			assigned, targeted = s.assigned, s.target
		}
		dm.Assignment.TopicPartitions = c.describedPartitions(assigned, assignment, &a)
		dm.TargetAssignment.TopicPartitions = c.describedPartitions(targeted, target, &a)
		if version >= 1 {
			// KIP-1099: a classic member of a consumer group (A7.1) is
			// described as one.
			dm.MemberType = codec.MemberTypeConsumer
			if m.flags&flClassic != 0 {
				dm.MemberType = codec.MemberTypeClassic
			}
		}
	}
	out.Members = ms[:k]
}

type idEntry struct {
	id string
	mi uint32
}

// sortedMembers lists the live members in member-id order, in the
// group's own array (group.byID): the list is good until the next call on
// g, and is not to be kept (g is locked meanwhile).
func (g *group) sortedMembers() []idEntry {
	out := g.byID[:0]
	for mi := 1; mi < len(g.mem); mi++ {
		if g.mem[mi].flags&flLive != 0 {
			out = append(out, idEntry{g.idString(uint32(mi)), uint32(mi)})
		}
	}
	slices.SortFunc(out, func(a, b idEntry) int { return strings.Compare(a.id, b.id) })
	g.byID = out
	return out
}

// describeArrays give one group's described partitions and topics their
// arrays.
type describeArrays struct {
	parts  listPool[int32]
	topics listPool[codec.DescribedTopicPartitions]
}

// topicsIn is the number of topics the sorted partition indexes ps span.
func (c *Coordinator) topicsIn(ps []int32) int {
	n, ti := 0, -1
	for _, p := range ps {
		if t := c.topicOf(p); t != ti {
			ti = t
			n++
		}
	}
	return n
}

// describedPartitions renders sorted partition indexes for
// ConsumerGroupDescribe, in the arrays of old (the list it replaces,
// whose topics' lists are reused too) or a's.
func (c *Coordinator) describedPartitions(ps []int32, old []codec.DescribedTopicPartitions, a *describeArrays) []codec.DescribedTopicPartitions {
	out := a.topics.take(old, c.topicsIn(ps))
	k := 0
	for from := 0; from < len(ps); k++ {
		t := c.topicOf(ps[from])
		to := from + 1
		for to < len(ps) && c.topicOf(ps[to]) == t {
			to++
		}
		tp := &out[k]
		parts := a.parts.take(tp.Partitions, to-from)
		for j, p := range ps[from:to] {
			parts[j] = p - c.base[t]
		}
		*tp = codec.DescribedTopicPartitions{TopicId: c.topics[t].ID, TopicName: c.topics[t].Name, Partitions: parts}
		from = to
	}
	return out
}
