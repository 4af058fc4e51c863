package codec

// Heartbeat (api key 12), versions 0-4, flexible from v4: a member of a
// classic group says it is alive; the answer tells it whether the group is
// rebalancing (REBALANCE_IN_PROGRESS: rejoin). It is a classic api
// (API.Classic).
//
//	v0     GroupId, GenerationId, MemberId  → ErrorCode
//	v1-v2  same                             → + ThrottleTimeMs (first)
//	v3     + GroupInstanceId (KIP-345)      → same
//	v4     flexible

// Heartbeat is api key 12.
const Heartbeat APIKey = 12

// heartbeatAPI is Heartbeat's row of the api table.
var heartbeatAPI = defineAPI[HeartbeatRequest, HeartbeatResponse](API{Key: Heartbeat, Name: "Heartbeat", MinVersion: 0, MaxVersion: 4, FlexibleFrom: 4, Classic: true})

// HeartbeatRequest keeps a member of a classic group alive.
type HeartbeatRequest struct {
	GroupId      string
	GenerationId int32
	MemberId     string
	// GroupInstanceId is v3+; it must be null before.
	GroupInstanceId NullableString
	UnknownTags     TaggedFields `json:",omitempty"`
}

func (*HeartbeatRequest) Key() APIKey      { return Heartbeat }
func (*HeartbeatRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *HeartbeatRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(Heartbeat, false, version); err != nil {
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
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *HeartbeatRequest) ReadFrom(r *Reader) {
	m.GroupId = r.String("GroupId", m.GroupId)
	m.GenerationId = r.Int32("GenerationId")
	m.MemberId = r.String("MemberId", m.MemberId)
	instance := m.GroupInstanceId
	m.GroupInstanceId = Null
	if r.Version() >= 3 {
		m.GroupInstanceId = r.NullableString("GroupInstanceId", instance)
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *HeartbeatRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *HeartbeatRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, Heartbeat, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// HeartbeatResponse answers a HeartbeatRequest.
type HeartbeatResponse struct {
	// ThrottleTimeMs is v1+ (ignorable).
	ThrottleTimeMs int32
	ErrorCode      ErrorCode
	UnknownTags    TaggedFields `json:",omitempty"`
}

func (*HeartbeatResponse) Key() APIKey      { return Heartbeat }
func (*HeartbeatResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *HeartbeatResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(Heartbeat, true, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 1 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	b = AppendInt16(b, int16(m.ErrorCode))
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *HeartbeatResponse) ReadFrom(r *Reader) {
	m.ThrottleTimeMs = 0
	if r.Version() >= 1 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *HeartbeatResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *HeartbeatResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, Heartbeat, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
