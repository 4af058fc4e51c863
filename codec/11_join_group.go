package codec

// JoinGroup (api key 11), versions 0-9, flexible from v6: a member joins a
// classic group, or rejoins it for a rebalance. It is a classic api
// (API.Classic): ghostcheck reads and writes it, its coordinators do not
// serve it.
//
//	v0     GroupId, SessionTimeoutMs, MemberId, ProtocolType, Protocols[Name, Metadata]
//	                                  → ErrorCode, GenerationId, ProtocolName, Leader,
//	                                    MemberId, Members[MemberId, Metadata]
//	v1     + RebalanceTimeoutMs       → same
//	v2                                → + ThrottleTimeMs (first)
//	v3     same
//	v4     same (KIP-394: a dynamic member's first join is answered
//	       MEMBER_ID_REQUIRED with the id it must join again with)
//	v5     + GroupInstanceId (KIP-345)→ + Members.GroupInstanceId
//	v6     flexible
//	v7                                → + ProtocolType; ProtocolName nullable (KIP-559)
//	v8     + Reason (KIP-800)
//	v9                                → + SkipAssignment (KIP-814)
//
// A field a version lacks reads as Kafka's default (RebalanceTimeoutMs -1,
// which a broker replaces by the session timeout in a v0 request; null
// strings; false) and is written only when it holds that default or is
// ignorable (RebalanceTimeoutMs, Reason, ThrottleTimeMs, the response's
// ProtocolType and Members.GroupInstanceId are).

// JoinGroup is api key 11.
const JoinGroup APIKey = 11

// joinGroupAPI is JoinGroup's row of the api table.
var joinGroupAPI = defineAPI[JoinGroupRequest, JoinGroupResponse](API{Key: JoinGroup, Name: "JoinGroup", MinVersion: 0, MaxVersion: 9, FlexibleFrom: 6, Classic: true})

// JoinGroupRequest joins a classic group: with an empty MemberId the first
// time (a static member names itself by GroupInstanceId), with the id the
// coordinator gave it afterwards.
type JoinGroupRequest struct {
	GroupId          string
	SessionTimeoutMs int32
	// RebalanceTimeoutMs is v1+ (ignorable); v0 reads as -1, and a broker
	// then uses SessionTimeoutMs.
	RebalanceTimeoutMs int32
	MemberId           string
	// GroupInstanceId is v5+; it must be null before.
	GroupInstanceId NullableString
	ProtocolType    string
	Protocols       []JoinGroupRequestProtocol
	// Reason is v8+ (ignorable).
	Reason      NullableString
	UnknownTags TaggedFields `json:",omitempty"`
}

// JoinGroupRequestProtocol is one protocol (for a consumer, an assignor) the
// member supports, with its metadata (for a consumer, its subscription).
type JoinGroupRequestProtocol struct {
	Name        string
	Metadata    []byte
	UnknownTags TaggedFields `json:",omitempty"`
}

func (*JoinGroupRequest) Key() APIKey      { return JoinGroup }
func (*JoinGroupRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *JoinGroupRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(JoinGroup, false, version); err != nil {
		return dst, err
	}
	b := dst
	b = w.String(b, "GroupId", m.GroupId)
	b = AppendInt32(b, m.SessionTimeoutMs)
	if version >= 1 {
		b = AppendInt32(b, m.RebalanceTimeoutMs)
	}
	b = w.String(b, "MemberId", m.MemberId)
	if version >= 5 {
		b = w.NullableString(b, "GroupInstanceId", m.GroupInstanceId)
	} else {
		w.Absent("GroupInstanceId", !m.GroupInstanceId.Valid, false)
	}
	b = w.String(b, "ProtocolType", m.ProtocolType)
	protocols := m.Protocols
	b = w.ArrayLen(b, len(protocols))
	for i := range protocols {
		p := &protocols[i]
		b = w.String(b, "Protocols.Name", p.Name)
		b = w.Bytes(b, p.Metadata)
		b = w.UnknownTags(b, "Protocols.TaggedFields", p.UnknownTags)
	}
	if version >= 8 {
		b = w.NullableString(b, "Reason", m.Reason)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *JoinGroupRequest) ReadFrom(r *Reader) {
	v := r.Version()
	m.GroupId = r.String("GroupId", m.GroupId)
	m.SessionTimeoutMs = r.Int32("SessionTimeoutMs")
	m.RebalanceTimeoutMs = -1
	if v >= 1 {
		m.RebalanceTimeoutMs = r.Int32("RebalanceTimeoutMs")
	}
	m.MemberId = r.String("MemberId", m.MemberId)
	instance := m.GroupInstanceId
	m.GroupInstanceId = Null
	if v >= 5 {
		m.GroupInstanceId = r.NullableString("GroupInstanceId", instance)
	}
	m.ProtocolType = r.String("ProtocolType", m.ProtocolType)
	// Name 2 and Metadata 4 classic; 1, 1 and tags 1 flexible.
	minSize := 6
	if r.Flexible() {
		minSize = 3
	}
	n := r.ArrayLen("Protocols", minSize, false)
	m.Protocols = resize(m.Protocols, n)
	for i := range m.Protocols {
		p := &m.Protocols[i]
		p.Name = r.String("Protocols.Name", p.Name)
		p.Metadata = r.Bytes("Protocols.Metadata")
		p.UnknownTags = nil
		if r.Flexible() {
			p.UnknownTags = r.UnknownTags("Protocols.TaggedFields", p.UnknownTags)
		}
	}
	reason := m.Reason
	m.Reason = Null
	if v >= 8 {
		m.Reason = r.NullableString("Reason", reason)
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *JoinGroupRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *JoinGroupRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, JoinGroup, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// JoinGroupResponse answers a JoinGroupRequest: the generation the member
// joined, the protocol chosen and the leader; the leader alone gets every
// member's metadata in Members, to compute the assignment it sends in
// SyncGroup.
type JoinGroupResponse struct {
	// ThrottleTimeMs is v2+ (ignorable).
	ThrottleTimeMs int32
	ErrorCode      ErrorCode
	GenerationId   int32
	// ProtocolType is v7+ (ignorable).
	ProtocolType NullableString
	// ProtocolName is nullable from v7. Below v7 the field is a plain
	// string and null is written as the empty string, as Kafka's broker
	// writes it (JoinGroupResponse's constructor); a decoded v0-v6 response
	// never holds null. (Kafka's broker also turns an empty name into null
	// from v7; this codec writes what it is given.)
	ProtocolName NullableString
	Leader       string
	// SkipAssignment is v9+; it must be false before.
	SkipAssignment bool
	MemberId       string
	// Members is the group's members with their metadata, for the leader;
	// empty for the others.
	Members     []JoinGroupResponseMember
	UnknownTags TaggedFields `json:",omitempty"`
}

// JoinGroupResponseMember is one member as the leader sees it.
type JoinGroupResponseMember struct {
	MemberId string
	// GroupInstanceId is v5+ (ignorable).
	GroupInstanceId NullableString
	Metadata        []byte
	UnknownTags     TaggedFields `json:",omitempty"`
}

func (*JoinGroupResponse) Key() APIKey      { return JoinGroup }
func (*JoinGroupResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *JoinGroupResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(JoinGroup, true, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 2 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	b = AppendInt16(b, int16(m.ErrorCode))
	b = AppendInt32(b, m.GenerationId)
	if version >= 7 {
		b = w.NullableString(b, "ProtocolType", m.ProtocolType)
		b = w.NullableString(b, "ProtocolName", m.ProtocolName)
	} else {
		b = w.String(b, "ProtocolName", m.ProtocolName.Value)
	}
	b = w.String(b, "Leader", m.Leader)
	if version >= 9 {
		b = AppendBool(b, m.SkipAssignment)
	} else {
		w.Absent("SkipAssignment", !m.SkipAssignment, false)
	}
	b = w.String(b, "MemberId", m.MemberId)
	members := m.Members
	b = w.ArrayLen(b, len(members))
	for i := range members {
		mb := &members[i]
		b = w.String(b, "Members.MemberId", mb.MemberId)
		if version >= 5 {
			b = w.NullableString(b, "Members.GroupInstanceId", mb.GroupInstanceId)
		}
		b = w.Bytes(b, mb.Metadata)
		b = w.UnknownTags(b, "Members.TaggedFields", mb.UnknownTags)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *JoinGroupResponse) ReadFrom(r *Reader) {
	v := r.Version()
	m.ThrottleTimeMs = 0
	if v >= 2 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.GenerationId = r.Int32("GenerationId")
	protocolType := m.ProtocolType
	m.ProtocolType = Null
	if v >= 7 {
		m.ProtocolType = r.NullableString("ProtocolType", protocolType)
	}
	m.ProtocolName = r.NullableStringAt("ProtocolName", m.ProtocolName, v >= 7)
	m.Leader = r.String("Leader", m.Leader)
	m.SkipAssignment = false
	if v >= 9 {
		m.SkipAssignment = r.Bool("SkipAssignment")
	}
	m.MemberId = r.String("MemberId", m.MemberId)
	// MemberId, GroupInstanceId (v5+) and Metadata: 2, 2 and 4 bytes
	// classic; 1, 1, 1 and tags 1 flexible.
	minSize := 6
	switch {
	case r.Flexible():
		minSize = 4
	case v >= 5:
		minSize = 8
	}
	n := r.ArrayLen("Members", minSize, false)
	m.Members = resize(m.Members, n)
	for i := range m.Members {
		mb := &m.Members[i]
		mb.MemberId = r.String("Members.MemberId", mb.MemberId)
		instance := mb.GroupInstanceId
		mb.GroupInstanceId = Null
		if v >= 5 {
			mb.GroupInstanceId = r.NullableString("Members.GroupInstanceId", instance)
		}
		mb.Metadata = r.Bytes("Members.Metadata")
		mb.UnknownTags = nil
		if r.Flexible() {
			mb.UnknownTags = r.UnknownTags("Members.TaggedFields", mb.UnknownTags)
		}
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *JoinGroupResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *JoinGroupResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, JoinGroup, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
