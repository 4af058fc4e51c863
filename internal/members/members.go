// Package members is KIP-345's membership management from the command line:
// list a consumer group's members as ConsumerGroupDescribe shows them, and
// remove members with LeaveGroup: static members by group.instance.id
// (one v3+ batch), any member by its member id (Kafka 4.0+; below v3 one
// request per member id).
// Both speak to any broker over TCP with version negotiation, and with
// KIP-1313 headers (the client instance id in tag 0, ClientId on the first
// request only).
package members

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Options say where and how long.
type Options struct {
	// Bootstrap are the addresses to learn the cluster from; each group's
	// requests go to its coordinator (wire.Cluster).
	Bootstrap []string
	// Dialer makes the connections (TLS, SASL); its Timeout is Timeout.
	Dialer   wire.Dialer
	ClientID string
	// Timeout bounds the dial and each request.
	Timeout time.Duration
	// Log, if set, sees what finding the group's coordinator met, one
	// line a step (a coordinator error retried, a move): none is an
	// error by itself.
	Log func(string)
}

// session is a cluster client for one group: its requests go to the
// group's coordinator, found and re-found as Kafka's clients do (a
// coordinator that moves between two requests of a removal is followed).
type session struct {
	ctx      context.Context
	cl       *wire.Cluster
	group    string
	versions wire.Versions // the coordinator's
	log      func(string)
}

func open(o Options, group string) (*session, error) {
	if o.ClientID == "" {
		o.ClientID = "ghostcheck-members"
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	o.Dialer.Timeout = o.Timeout
	ctx := context.Background()
	cl, err := wire.Connect(ctx, o.Bootstrap, wire.ClusterOptions{Dialer: o.Dialer, ClientID: o.ClientID})
	if err != nil {
		return nil, brokerError(fmt.Errorf("connecting to %s: %w", strings.Join(o.Bootstrap, ","), err))
	}
	s := &session{ctx: ctx, cl: cl, group: group, log: o.Log}
	b, evs, err := cl.Coordinator(ctx, group)
	s.note(evs)
	if err != nil {
		cl.Close()
		return nil, brokerError(fmt.Errorf("finding the coordinator of group %s: %w", group, err))
	}
	if s.versions, err = cl.Versions(ctx, b.ID); err != nil {
		cl.Close()
		return nil, brokerError(fmt.Errorf("ApiVersions of broker %d: %w", b.ID, err))
	}
	return s, nil
}

// brokerError is err as a *BrokerError when a broker answered it with an
// error code (GROUP_AUTHORIZATION_FAILED from FindCoordinator, an
// ApiVersions refused), else err.
func brokerError(err error) error {
	var ae *wire.ApiVersionsError
	var be *wire.BrokerError
	switch {
	case errors.As(err, &ae):
		return &BrokerError{API: "ApiVersions", Code: ae.Code}
	case errors.As(err, &be):
		return &BrokerError{API: be.API.String(), Code: be.Code, Message: be.Message}
	}
	return err
}

func (s *session) close() { s.cl.Close() }

func (s *session) note(evs []wire.Event) {
	if s.log == nil {
		return
	}
	for _, e := range evs {
		s.log(e.String())
	}
}

// version picks the highest version of key both sides speak, or reports
// that the broker has none in [min, max].
func (s *session) version(key codec.APIKey, min, max int16) (int16, error) {
	return s.versions.Pick(key, min, max)
}

func (s *session) roundTrip(key codec.APIKey, version int16, req codec.Message) (codec.Message, error) {
	resp, evs, err := s.cl.RoundTrip(s.ctx, s.group, version, req)
	s.note(evs)
	if err != nil {
		return nil, brokerError(fmt.Errorf("%v v%d: %w", key, version, err))
	}
	return resp, nil
}

// BrokerError is an error code the broker answered, by name and meaning.
type BrokerError struct {
	API     string
	Code    codec.ErrorCode
	Message string
}

func (e *BrokerError) Error() string {
	s := fmt.Sprintf("%s: %s (%d): %s", e.API, e.Code, int16(e.Code), Meaning(e.Code))
	if e.Message != "" {
		s += " — broker says: " + e.Message
	}
	return s
}

// Member is one member as listed.
type Member struct {
	MemberID   string   `json:"memberId"`
	InstanceID string   `json:"instanceId,omitempty"`
	ClientID   string   `json:"clientId"`
	ClientHost string   `json:"clientHost"`
	Epoch      int32    `json:"memberEpoch"`
	State      string   `json:"state"`
	Owned      []string `json:"owned"`
	Target     []string `json:"target"`
	Type       string   `json:"memberType,omitempty"`
}

// Group is a group as listed.
type Group struct {
	GroupID         string   `json:"groupId"`
	State           string   `json:"state"`
	GroupEpoch      int32    `json:"groupEpoch"`
	AssignmentEpoch int32    `json:"assignmentEpoch"`
	Assignor        string   `json:"assignor"`
	Members         []Member `json:"members"`
	// DescribeVersion is the ConsumerGroupDescribe version used.
	DescribeVersion int16 `json:"describeVersion"`
}

// Member states as the list shows them. They are read off what the
// broker reports (epochs and assignments), nothing more.
const (
	StateStable      = "STABLE"
	StateParked      = "PARKED (-2)"
	StateReconciling = "RECONCILING"
	StateUnreleased  = "UNRELEASED_PARTITIONS"
	StateJoining     = "JOINING"
)

// List describes group.
func List(o Options, group string) (*Group, error) {
	s, err := open(o, group)
	if err != nil {
		return nil, err
	}
	defer s.close()
	v, err := s.version(codec.ConsumerGroupDescribe, 0, 1)
	if err != nil {
		return nil, err
	}
	resp, err := s.roundTrip(codec.ConsumerGroupDescribe, v, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}})
	if err != nil {
		return nil, err
	}
	r := resp.(*codec.ConsumerGroupDescribeResponse)
	if len(r.Groups) != 1 {
		return nil, fmt.Errorf("ConsumerGroupDescribe answered %d groups for one", len(r.Groups))
	}
	g := r.Groups[0]
	if g.ErrorCode != codec.None {
		return nil, &BrokerError{API: "ConsumerGroupDescribe", Code: g.ErrorCode, Message: g.ErrorMessage.Value}
	}
	out := &Group{GroupID: g.GroupId, State: g.GroupState, GroupEpoch: g.GroupEpoch, AssignmentEpoch: g.AssignmentEpoch,
		Assignor: g.AssignorName, DescribeVersion: v}
	for _, m := range g.Members {
		mm := Member{MemberID: m.MemberId, InstanceID: m.InstanceId.Value, ClientID: m.ClientId, ClientHost: m.ClientHost,
			Epoch: m.MemberEpoch, Owned: partitions(m.Assignment), Target: partitions(m.TargetAssignment)}
		switch m.MemberType {
		case codec.MemberTypeClassic:
			mm.Type = "classic"
		case codec.MemberTypeConsumer:
			mm.Type = "consumer"
		}
		mm.State = memberState(mm, g.AssignmentEpoch)
		out.Members = append(out.Members, mm)
	}
	sort.Slice(out.Members, func(i, j int) bool { return out.Members[i].MemberID < out.Members[j].MemberID })
	return out, nil
}

// memberState reads a member's reconciliation state off what Describe
// shows: parked at -2; behind the assignment epoch; at it but still
// waiting for partitions another member holds; or stable.
func memberState(m Member, assignmentEpoch int32) string {
	switch {
	case m.Epoch == rules.StaticLeaveEpoch:
		return StateParked
	case m.Epoch == 0:
		return StateJoining
	case m.Epoch < assignmentEpoch:
		return StateReconciling
	case !slices.Equal(m.Owned, m.Target):
		return StateUnreleased
	}
	return StateStable
}

func partitions(a codec.DescribedAssignment) []string {
	out := []string{}
	for _, t := range a.TopicPartitions {
		name := t.TopicName
		if name == "" {
			name = t.TopicId.String()
		}
		for _, p := range t.Partitions {
			out = append(out, fmt.Sprintf("%s-%d", name, p))
		}
	}
	sort.Strings(out)
	return out
}

// ErrNeedsV3 is returned, before anything is sent, when the broker's
// LeaveGroup is older than v3 and an instance id is to be removed: removal
// by instance id needs the KIP-345 batch form.
var ErrNeedsV3 = errors.New("removing members by group.instance.id needs LeaveGroup v3 (KIP-345)")

// Who names the members to remove.
type Who struct {
	// InstanceIDs are static members removed by group.instance.id: the
	// administrative removal, an entry {MemberId "", the instance id}
	// (LeaveGroup v3+).
	InstanceIDs []string
	// MemberIDs are members removed by member id, an entry {the id, null}:
	// any member of a consumer group, dynamic or static, on Kafka 4.0+
	// (KAFKA-18188). Below LeaveGroup v3 each is a request of its own.
	MemberIDs []string
}

// Removal is one member's result.
type Removal struct {
	InstanceID string          `json:"instanceId"`
	MemberID   string          `json:"memberId"`
	Code       codec.ErrorCode `json:"errorCode"`
	Error      string          `json:"error"`
	Meaning    string          `json:"meaning,omitempty"`
}

// Removed reports whether the member was removed.
func (r Removal) Removed() bool { return r.Code == codec.None }

// Remove removes the members who names from group, at the highest
// LeaveGroup version both sides speak (docs/PROTOCOL.md A3): at v3+ one
// batch, instance ids first, with reason at v5; below v3 one request per
// member id (the client downgrade), and an instance id refused with
// ErrNeedsV3 before anything is sent. It returns the version used and each
// member's result, in the order of who.
func Remove(o Options, group string, who Who, reason string) (int16, []Removal, error) {
	entries := removalEntries(who, reason)
	if len(entries) == 0 {
		return 0, nil, errors.New("no instance ids or member ids to remove")
	}
	s, err := open(o, group)
	if err != nil {
		return 0, nil, err
	}
	defer s.close()
	v, ok := s.versions[codec.LeaveGroup]
	switch {
	case !ok && len(who.InstanceIDs) > 0:
		return 0, nil, fmt.Errorf("the broker does not offer LeaveGroup: %w", ErrNeedsV3)
	case !ok:
		return 0, nil, errors.New("the broker does not offer LeaveGroup")
	case v[1] < 3 && len(who.InstanceIDs) > 0:
		return 0, nil, fmt.Errorf("the broker's LeaveGroup stops at v%d: %w", v[1], ErrNeedsV3)
	}
	// Who holds each instance id now, to say which member went (the
	// response may echo the request's empty member id).
	var holders map[string]string
	if len(who.InstanceIDs) > 0 {
		holders = s.instanceHolders(group)
	}
	calls, _ := rules.PlanLeaveGroup(group, entries, v[1])
	out := make([]Removal, len(entries))
	for i, e := range entries {
		out[i] = Removal{InstanceID: e.GroupInstanceId.Value, MemberID: e.MemberId}
		if e.GroupInstanceId.Valid {
			out[i].MemberID = holders[e.GroupInstanceId.Value]
		}
	}
	var version int16
	for _, call := range calls {
		version = call.Version
		if err := s.leave(call, entries, out); err != nil {
			return version, nil, err
		}
	}
	return version, out, nil
}

// removalEntries are who's LeaveGroup entries, instance ids first, each id
// once.
func removalEntries(who Who, reason string) []codec.LeaveGroupMember {
	var out []codec.LeaveGroupMember
	seen := map[string]bool{}
	add := func(key string, m codec.LeaveGroupMember) {
		if !seen[key] {
			seen[key] = true
			if reason != "" {
				m.Reason = codec.Str(reason)
			}
			out = append(out, m)
		}
	}
	for _, id := range who.InstanceIDs {
		add("i:"+id, codec.LeaveGroupMember{GroupInstanceId: codec.Str(id)})
	}
	for _, id := range who.MemberIDs {
		add("m:"+id, codec.LeaveGroupMember{MemberId: id})
	}
	return out
}

// leave sends one planned LeaveGroup and fills in the results of the
// entries it names. At v3+ each entry is found in the response by its
// instance id, or by its member id when it has none (a broker may echo
// the holder's member id for an instance entry); below v3 the top-level
// code is the one member's result.
func (s *session) leave(call rules.LeaveGroupCall, entries []codec.LeaveGroupMember, out []Removal) error {
	resp, err := s.roundTrip(codec.LeaveGroup, call.Version, call.Request)
	if err != nil {
		return err
	}
	r := resp.(*codec.LeaveGroupResponse)
	if call.Version < 3 {
		for _, i := range call.Members {
			out[i].setCode(r.ErrorCode)
		}
		return nil
	}
	if r.ErrorCode != codec.None {
		return &BrokerError{API: "LeaveGroup", Code: r.ErrorCode}
	}
	key := func(instance codec.NullableString, member string) string {
		if instance.Valid {
			return "i:" + instance.Value
		}
		return "m:" + member
	}
	answered := map[string]codec.LeaveGroupMemberResponse{}
	for _, m := range r.Members {
		answered[key(m.GroupInstanceId, m.MemberId)] = m
	}
	for _, i := range call.Members {
		e := entries[i]
		m, ok := answered[key(e.GroupInstanceId, e.MemberId)]
		if !ok {
			return fmt.Errorf("LeaveGroup v%d answered no result for %s", call.Version, describeEntry(e))
		}
		if m.MemberId != "" {
			out[i].MemberID = m.MemberId
		}
		out[i].setCode(m.ErrorCode)
	}
	return nil
}

func (r *Removal) setCode(c codec.ErrorCode) {
	r.Code, r.Error, r.Meaning = c, c.String(), ""
	if c != codec.None {
		r.Meaning = Meaning(c)
	}
}

func describeEntry(e codec.LeaveGroupMember) string {
	if e.GroupInstanceId.Valid {
		return "instance " + e.GroupInstanceId.Value
	}
	return "member " + e.MemberId
}

// instanceHolders maps the group's instance ids to member ids, from a
// ConsumerGroupDescribe when the broker offers it (best effort: nil
// otherwise).
func (s *session) instanceHolders(group string) map[string]string {
	v, err := s.version(codec.ConsumerGroupDescribe, 0, 1)
	if err != nil {
		return nil
	}
	resp, err := s.roundTrip(codec.ConsumerGroupDescribe, v, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}})
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, g := range resp.(*codec.ConsumerGroupDescribeResponse).Groups {
		for _, m := range g.Members {
			if m.InstanceId.Valid {
				out[m.InstanceId.Value] = m.MemberId
			}
		}
	}
	return out
}

// Meaning says in words what an error code means for these requests.
func Meaning(c codec.ErrorCode) string {
	switch c {
	case codec.None:
		return "success"
	case codec.UnknownMemberID:
		return "no member holds that id or instance id (already gone, or never joined)"
	case codec.FencedInstanceID:
		return "the instance id is held by a different member id"
	case codec.GroupIDNotFound:
		return "the group does not exist (or is not a consumer group)"
	case codec.InvalidGroupID:
		return "the group id is empty or invalid"
	case codec.GroupAuthorizationFailed:
		return "the principal may not access this group"
	case codec.NotCoordinator:
		return "this broker is not the group's coordinator; ask FindCoordinator"
	case codec.CoordinatorNotAvailable:
		return "the group coordinator is not available"
	case codec.CoordinatorLoadInProgress:
		return "the coordinator is still loading the group; retry"
	case codec.UnsupportedVersion:
		return "the broker does not support this version"
	case codec.InvalidRequest:
		return "the broker judged the request malformed"
	case codec.FencedMemberEpoch:
		return "the member's epoch is not the one the coordinator knows"
	case codec.UnreleasedInstanceID:
		return "the instance id is still held by an active member"
	}
	return "see Kafka's protocol documentation for " + c.String()
}

// Table renders a group for a terminal.
func Table(g *Group) string {
	var b strings.Builder
	fmt.Fprintf(&b, "group %s: state %s, group epoch %d, assignment epoch %d, assignor %s, %d members\n\n",
		g.GroupID, g.State, g.GroupEpoch, g.AssignmentEpoch, g.Assignor, len(g.Members))
	rows := [][]string{{"MEMBER ID", "INSTANCE ID", "CLIENT ID", "HOST", "EPOCH", "STATE", "OWNED"}}
	for _, m := range g.Members {
		inst := m.InstanceID
		if inst == "" {
			inst = "-"
		}
		owned := strings.Join(m.Owned, ",")
		if owned == "" {
			owned = "-"
		}
		rows = append(rows, []string{m.MemberID, inst, m.ClientID, m.ClientHost, fmt.Sprint(m.Epoch), m.State, owned})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			if len(c) > widths[i] {
				widths[i] = len(c)
			}
		}
	}
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
			} else {
				fmt.Fprintf(&b, "%-*s  ", widths[i], c)
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nConsumerGroupDescribe reports no heartbeat times, so a ghost cannot be told from a live member\n" +
		"from outside; a member parked at -2 is a static member away, which the coordinator must remove\n" +
		"at its session timeout if it does not come back.\n" +
		"To find ghosts, run ghostcheck check against the broker.\n")
	return b.String()
}
