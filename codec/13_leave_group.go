package codec

import "strconv"

// LeaveGroup (api key 13), versions 0-5, flexible from v4.
//
//	v0     GroupId, MemberId                 → ErrorCode
//	v1-v2  same                              → ThrottleTimeMs first
//	v3     GroupId, Members[MemberId, GroupInstanceId] (KIP-345 batch)
//	                                         → + Members[MemberId, GroupInstanceId, ErrorCode]
//	v4     flexible
//	v5     Members[].Reason (KIP-800, ignorable)

// LeaveGroup is api key 13.
const LeaveGroup APIKey = 13

// leaveGroupAPI is LeaveGroup's row of the api table.
var leaveGroupAPI = defineAPI[LeaveGroupRequest, LeaveGroupResponse](API{Key: LeaveGroup, Name: "LeaveGroup", MinVersion: 0, MaxVersion: 5, FlexibleFrom: 4})

// LeaveGroupRequest removes one member (v0-v2) or a batch (v3+) from a group.
type LeaveGroupRequest struct {
	GroupId string
	// MemberId is the leaving member at v0-v2; it must be "" at v3+.
	MemberId string
	// Members is the batch at v3+; it must be empty at v0-v2.
	Members     []LeaveGroupMember
	UnknownTags TaggedFields `json:",omitempty"`
}

// LeaveGroupMember identifies one member to remove. MemberId "" with a
// GroupInstanceId is the administrative removal of a static member (KIP-345).
type LeaveGroupMember struct {
	MemberId        string
	GroupInstanceId NullableString
	// Reason is v5+; dropped at older versions (ignorable).
	Reason      NullableString
	UnknownTags TaggedFields `json:",omitempty"`
}

func (*LeaveGroupRequest) Key() APIKey      { return LeaveGroup }
func (*LeaveGroupRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *LeaveGroupRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(LeaveGroup, false, version); err != nil {
		return dst, err
	}
	b := dst
	b = w.String(b, "GroupId", m.GroupId)
	if version <= 2 {
		b = w.String(b, "MemberId", m.MemberId)
		if len(m.Members) > 0 {
			w.Fail(ErrNotRepresentable, "Members", "v0-v2 name one member in MemberId; "+strconv.Itoa(len(m.Members))+" members given (send one request per member)")
		}
		b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
		return finish(b, &w)
	}
	w.Absent("MemberId", m.MemberId == "", false)
	members := m.Members // a local: the calls below would make m.Members be reloaded
	b = w.ArrayLen(b, len(members))
	for i := range members {
		mb := &members[i]
		b = w.String(b, "Members.MemberId", mb.MemberId)
		b = w.NullableString(b, "Members.GroupInstanceId", mb.GroupInstanceId)
		if version >= 5 {
			b = w.NullableString(b, "Members.Reason", mb.Reason)
		}
		b = w.UnknownTags(b, "Members.TaggedFields", mb.UnknownTags)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *LeaveGroupRequest) ReadFrom(r *Reader) {
	v := r.Version()
	m.GroupId = r.String("GroupId", m.GroupId)
	memberID := m.MemberId
	m.MemberId = ""
	m.UnknownTags = nil
	if v <= 2 {
		m.MemberId = r.String("MemberId", memberID)
		m.Members = nil
		return
	}
	// MemberId 1-2, GroupInstanceId 1-2, tags 0-1.
	n := r.ArrayLen("Members", 2, false)
	m.Members = resize(m.Members, n)
	for i := range m.Members {
		mb := &m.Members[i]
		mb.MemberId = r.String("Members.MemberId", mb.MemberId)
		mb.GroupInstanceId = r.NullableString("Members.GroupInstanceId", mb.GroupInstanceId)
		reason := mb.Reason
		mb.Reason = Null
		if v >= 5 {
			mb.Reason = r.NullableString("Members.Reason", reason)
		}
		mb.UnknownTags = nil
		if r.Flexible() {
			mb.UnknownTags = r.UnknownTags("Members.TaggedFields", mb.UnknownTags)
		}
	}
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *LeaveGroupRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *LeaveGroupRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, LeaveGroup, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// LeaveGroupResponse answers a LeaveGroupRequest. At v3+ errors are per
// member and ErrorCode is a group-level error only; at v0-v2 ErrorCode
// carries the one member's result.
type LeaveGroupResponse struct {
	// ThrottleTimeMs is v1+ (dropped at v0).
	ThrottleTimeMs int32
	ErrorCode      ErrorCode
	// Members is v3+.
	Members     []LeaveGroupMemberResponse
	UnknownTags TaggedFields `json:",omitempty"`
}

// LeaveGroupMemberResponse is one member's result.
type LeaveGroupMemberResponse struct {
	MemberId        string
	GroupInstanceId NullableString
	ErrorCode       ErrorCode
	UnknownTags     TaggedFields `json:",omitempty"`
}

func (*LeaveGroupResponse) Key() APIKey      { return LeaveGroup }
func (*LeaveGroupResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *LeaveGroupResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(LeaveGroup, true, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 1 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	b = AppendInt16(b, int16(m.ErrorCode))
	if version <= 2 {
		w.Absent("Members", len(m.Members) == 0, false)
		b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
		return finish(b, &w)
	}
	b = w.ArrayLen(b, len(m.Members))
	for i := range m.Members {
		mb := &m.Members[i]
		b = w.String(b, "Members.MemberId", mb.MemberId)
		b = w.NullableString(b, "Members.GroupInstanceId", mb.GroupInstanceId)
		b = AppendInt16(b, int16(mb.ErrorCode))
		b = w.UnknownTags(b, "Members.TaggedFields", mb.UnknownTags)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *LeaveGroupResponse) ReadFrom(r *Reader) {
	v := r.Version()
	m.ThrottleTimeMs = 0
	if v >= 1 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.UnknownTags = nil
	if v <= 2 {
		m.Members = nil
		return
	}
	// MemberId 1-2, GroupInstanceId 1-2, ErrorCode 2, tags 0-1.
	n := r.ArrayLen("Members", 4, false)
	m.Members = resize(m.Members, n)
	for i := range m.Members {
		mb := &m.Members[i]
		mb.MemberId = r.String("Members.MemberId", mb.MemberId)
		mb.GroupInstanceId = r.NullableString("Members.GroupInstanceId", mb.GroupInstanceId)
		mb.ErrorCode = ErrorCode(r.Int16("Members.ErrorCode"))
		mb.UnknownTags = nil
		if r.Flexible() {
			mb.UnknownTags = r.UnknownTags("Members.TaggedFields", mb.UnknownTags)
		}
	}
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *LeaveGroupResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *LeaveGroupResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, LeaveGroup, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
