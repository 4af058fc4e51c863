package codec

// SyncGroup (api key 14), versions 0-5, flexible from v4: after a JoinGroup
// round, the leader sends the assignment of every member and each member
// gets its own back. It is a classic api (API.Classic).
//
//	v0     GroupId, GenerationId, MemberId, Assignments[MemberId, Assignment]
//	                                        → ErrorCode, Assignment
//	v1-v2  same                             → + ThrottleTimeMs (first)
//	v3     + GroupInstanceId (KIP-345)      → same
//	v4     flexible
//	v5     + ProtocolType, ProtocolName     → + ProtocolType, ProtocolName (KIP-559)
//
// ProtocolType and ProtocolName are ignorable: a version that lacks them
// drops them. A broker answers a v5 request that leaves either null with
// INCONSISTENT_GROUP_PROTOCOL (Kafka's KafkaApis); the codec carries the
// null.

// SyncGroup is api key 14.
const SyncGroup APIKey = 14

// syncGroupAPI is SyncGroup's row of the api table.
var syncGroupAPI = defineAPI[SyncGroupRequest, SyncGroupResponse](API{Key: SyncGroup, Name: "SyncGroup", MinVersion: 0, MaxVersion: 5, FlexibleFrom: 4, Classic: true})

// SyncGroupRequest ends a member's part in a rebalance: the leader's
// carries the group's assignment, the others' none.
type SyncGroupRequest struct {
	GroupId      string
	GenerationId int32
	MemberId     string
	// GroupInstanceId is v3+; it must be null before.
	GroupInstanceId NullableString
	// ProtocolType and ProtocolName are v5+ (ignorable).
	ProtocolType NullableString
	ProtocolName NullableString
	Assignments  []SyncGroupRequestAssignment
	UnknownTags  TaggedFields `json:",omitempty"`
}

// SyncGroupRequestAssignment is the assignment the leader computed for one
// member.
type SyncGroupRequestAssignment struct {
	MemberId    string
	Assignment  []byte
	UnknownTags TaggedFields `json:",omitempty"`
}

func (*SyncGroupRequest) Key() APIKey      { return SyncGroup }
func (*SyncGroupRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *SyncGroupRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(SyncGroup, false, version); err != nil {
		return dst, err
	}
	b := dst
	b = w.String(b, "GroupId", m.GroupId)
	b = AppendInt32(b, m.GenerationId)
	b = w.String(b, "MemberId", m.MemberId)
	if version >= 3 {
		b = w.NullableString(b, "GroupInstanceId", m.GroupInstanceId)
	} else {
		w.Absent("GroupInstanceId", !m.GroupInstanceId.Valid, false)
	}
	if version >= 5 {
		b = w.NullableString(b, "ProtocolType", m.ProtocolType)
		b = w.NullableString(b, "ProtocolName", m.ProtocolName)
	}
	assignments := m.Assignments
	b = w.ArrayLen(b, len(assignments))
	for i := range assignments {
		a := &assignments[i]
		b = w.String(b, "Assignments.MemberId", a.MemberId)
		b = w.Bytes(b, a.Assignment)
		b = w.UnknownTags(b, "Assignments.TaggedFields", a.UnknownTags)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *SyncGroupRequest) ReadFrom(r *Reader) {
	v := r.Version()
	m.GroupId = r.String("GroupId", m.GroupId)
	m.GenerationId = r.Int32("GenerationId")
	m.MemberId = r.String("MemberId", m.MemberId)
	instance := m.GroupInstanceId
	m.GroupInstanceId = Null
	if v >= 3 {
		m.GroupInstanceId = r.NullableString("GroupInstanceId", instance)
	}
	m.ProtocolType, m.ProtocolName = readProtocolTypeAndName(r, m.ProtocolType, m.ProtocolName)
	// MemberId 2 and Assignment 4 classic; 1, 1 and tags 1 flexible.
	minSize := 6
	if r.Flexible() {
		minSize = 3
	}
	n := r.ArrayLen("Assignments", minSize, false)
	m.Assignments = resize(m.Assignments, n)
	for i := range m.Assignments {
		a := &m.Assignments[i]
		a.MemberId = r.String("Assignments.MemberId", a.MemberId)
		a.Assignment = r.Bytes("Assignments.Assignment")
		a.UnknownTags = nil
		if r.Flexible() {
			a.UnknownTags = r.UnknownTags("Assignments.TaggedFields", a.UnknownTags)
		}
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// readProtocolTypeAndName reads SyncGroup's ProtocolType and ProtocolName,
// v5+ in the request and the response alike, null before; typ and name
// are the values they held (see Reader.String).
func readProtocolTypeAndName(r *Reader, typ, name NullableString) (NullableString, NullableString) {
	if r.Version() < 5 {
		return Null, Null
	}
	typ = r.NullableString("ProtocolType", typ)
	return typ, r.NullableString("ProtocolName", name)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *SyncGroupRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *SyncGroupRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, SyncGroup, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// SyncGroupResponse gives a member its assignment for the generation.
type SyncGroupResponse struct {
	// ThrottleTimeMs is v1+ (ignorable).
	ThrottleTimeMs int32
	ErrorCode      ErrorCode
	// ProtocolType and ProtocolName are v5+ (ignorable).
	ProtocolType NullableString
	ProtocolName NullableString
	Assignment   []byte
	UnknownTags  TaggedFields `json:",omitempty"`
}

func (*SyncGroupResponse) Key() APIKey      { return SyncGroup }
func (*SyncGroupResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *SyncGroupResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(SyncGroup, true, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 1 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	b = AppendInt16(b, int16(m.ErrorCode))
	if version >= 5 {
		b = w.NullableString(b, "ProtocolType", m.ProtocolType)
		b = w.NullableString(b, "ProtocolName", m.ProtocolName)
	}
	b = w.Bytes(b, m.Assignment)
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *SyncGroupResponse) ReadFrom(r *Reader) {
	m.ThrottleTimeMs = 0
	if r.Version() >= 1 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.ProtocolType, m.ProtocolName = readProtocolTypeAndName(r, m.ProtocolType, m.ProtocolName)
	m.Assignment = r.Bytes("Assignment")
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *SyncGroupResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *SyncGroupResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, SyncGroup, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
