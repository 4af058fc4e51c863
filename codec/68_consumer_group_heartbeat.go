package codec

import "encoding/binary"

// ConsumerGroupHeartbeat (api key 68), versions 0-1, flexible from v0.
//
// v1 adds SubscribedTopicRegex and, by KIP-1082, makes a client-generated
// MemberId mandatory on every request; the wire layout is otherwise the
// same. The broker rules are in docs/PROTOCOL.md §B4.

// ConsumerGroupHeartbeat is api key 68.
const ConsumerGroupHeartbeat APIKey = 68

// consumerGroupHeartbeatAPI is ConsumerGroupHeartbeat's row of the api table.
var consumerGroupHeartbeatAPI = defineAPI[ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse](API{Key: ConsumerGroupHeartbeat, Name: "ConsumerGroupHeartbeat", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0})

// ConsumerGroupHeartbeatRequest joins (MemberEpoch 0), heartbeats (> 0) or
// leaves (-1, or -2 for a static member leaving temporarily) a consumer group.
type ConsumerGroupHeartbeatRequest struct {
	GroupId     string
	MemberId    string
	MemberEpoch int32
	// InstanceId is null when the member is not static or it did not change.
	InstanceId NullableString
	RackId     NullableString
	// RebalanceTimeoutMs is -1 when unchanged.
	RebalanceTimeoutMs int32
	// SubscribedTopicNames is nil (null) when unchanged.
	SubscribedTopicNames []string
	// SubscribedTopicRegex (v1+) is null when unchanged.
	SubscribedTopicRegex NullableString
	ServerAssignor       NullableString
	// TopicPartitions is nil (null) when unchanged; otherwise the partitions
	// the member owns.
	TopicPartitions []ConsumerGroupHeartbeatTopicPartitions
	UnknownTags     TaggedFields `json:",omitempty"`
}

// ConsumerGroupHeartbeatTopicPartitions is one topic's partitions in a
// request's TopicPartitions or a response's Assignment.
type ConsumerGroupHeartbeatTopicPartitions struct {
	TopicId     UUID
	Partitions  []int32
	UnknownTags TaggedFields `json:",omitempty"`
}

func (*ConsumerGroupHeartbeatRequest) Key() APIKey      { return ConsumerGroupHeartbeat }
func (*ConsumerGroupHeartbeatRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *ConsumerGroupHeartbeatRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(ConsumerGroupHeartbeat, false, version); err != nil {
		return dst, err
	}
	b := dst
	b = w.String(b, "GroupId", m.GroupId)
	b = w.String(b, "MemberId", m.MemberId)
	b = AppendInt32(b, m.MemberEpoch)
	b = w.NullableString(b, "InstanceId", m.InstanceId)
	b = w.NullableString(b, "RackId", m.RackId)
	b = AppendInt32(b, m.RebalanceTimeoutMs)
	b = w.StringArray(b, "SubscribedTopicNames", m.SubscribedTopicNames, true)
	if version >= 1 {
		b = w.NullableString(b, "SubscribedTopicRegex", m.SubscribedTopicRegex)
	} else {
		w.Absent("SubscribedTopicRegex", !m.SubscribedTopicRegex.Valid, false)
	}
	b = w.NullableString(b, "ServerAssignor", m.ServerAssignor)
	b = appendTopicPartitions(&w, b, m.TopicPartitions, true)
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

func appendTopicPartitions(w *Writer, b []byte, tps []ConsumerGroupHeartbeatTopicPartitions, nullable bool) []byte {
	if tps == nil && nullable {
		return w.NullArray(b)
	}
	b = w.ArrayLen(b, len(tps))
	for i := range tps {
		tp := &tps[i]
		b = AppendUUID(b, tp.TopicId)
		b = w.Int32Array(b, tp.Partitions, false)
		b = w.UnknownTags(b, "TopicPartitions.TaggedFields", tp.UnknownTags)
	}
	return b
}

// ReadFrom implements Message.
func (m *ConsumerGroupHeartbeatRequest) ReadFrom(r *Reader) {
	m.GroupId = r.String("GroupId", m.GroupId)
	m.MemberId = r.String("MemberId", m.MemberId)
	m.MemberEpoch = r.Int32("MemberEpoch")
	m.InstanceId = r.NullableString("InstanceId", m.InstanceId)
	m.RackId = r.NullableString("RackId", m.RackId)
	m.RebalanceTimeoutMs = r.Int32("RebalanceTimeoutMs")
	m.SubscribedTopicNames = r.StringArray("SubscribedTopicNames", m.SubscribedTopicNames, true)
	regex := m.SubscribedTopicRegex
	m.SubscribedTopicRegex = Null
	if r.Version() >= 1 {
		m.SubscribedTopicRegex = r.NullableString("SubscribedTopicRegex", regex)
	}
	m.ServerAssignor = r.NullableString("ServerAssignor", m.ServerAssignor)
	m.TopicPartitions = readTopicPartitions(r, "TopicPartitions", m.TopicPartitions, true)
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupHeartbeatRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupHeartbeatRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupHeartbeat, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

func readTopicPartitions(r *Reader, field string, dst []ConsumerGroupHeartbeatTopicPartitions, nullable bool) []ConsumerGroupHeartbeatTopicPartitions {
	// TopicId (16) + empty Partitions (1) + empty tags (1).
	n := r.ArrayLen(field, 18, nullable)
	if n < 0 {
		return nil
	}
	dst = sized(dst, n, nullable)
	for i := range dst {
		tp := &dst[i]
		if r.flexible && readTopicPartitionsFast(r, tp) {
			continue
		}
		tp.TopicId = r.UUID("TopicPartitions.TopicId")
		tp.Partitions = r.Int32Array("TopicPartitions.Partitions", tp.Partitions, false)
		tp.UnknownTags = r.UnknownTags("TopicPartitions.TaggedFields", tp.UnknownTags)
	}
	return dst
}

// readTopicPartitionsFast reads one element in the form nearly every
// element has, in one bounds check: a topic id, a compact partition count
// in one byte, the partitions, and an empty tag section. It reports false,
// reading nothing, for anything else (more than 126 partitions, tags,
// truncation), which the general path then reads and judges. The result is
// what the general path gives: no partitions decode to nil, no tags to nil.
func readTopicPartitionsFast(r *Reader, tp *ConsumerGroupHeartbeatTopicPartitions) bool {
	b := r.buf[r.off:]
	if len(b) < 18 {
		return false
	}
	c := int(b[16])
	if c == 0 || c >= 0x80 {
		return false
	}
	n := c - 1
	end := 17 + 4*n // the tag count
	if end >= len(b) || b[end] != 0 {
		return false
	}
	tp.TopicId = UUID(b[:16])
	tp.Partitions = resize(tp.Partitions, n)
	for j := range tp.Partitions {
		tp.Partitions[j] = int32(binary.BigEndian.Uint32(b[17+4*j:]))
	}
	tp.UnknownTags = nil
	r.off += end + 1
	return true
}

// ConsumerGroupHeartbeatResponse answers a ConsumerGroupHeartbeatRequest.
type ConsumerGroupHeartbeatResponse struct {
	ThrottleTimeMs int32
	ErrorCode      ErrorCode
	ErrorMessage   NullableString
	// MemberId is the member's id on success (the request's, or one the
	// coordinator made at v0), null on errors.
	MemberId    NullableString
	MemberEpoch int32
	// HeartbeatIntervalMs is 0 on error responses.
	HeartbeatIntervalMs int32
	// Assignment is nil (null) when unchanged.
	Assignment  *ConsumerGroupHeartbeatAssignment
	UnknownTags TaggedFields `json:",omitempty"`
}

// ConsumerGroupHeartbeatAssignment is the member's assignment.
type ConsumerGroupHeartbeatAssignment struct {
	TopicPartitions []ConsumerGroupHeartbeatTopicPartitions
	UnknownTags     TaggedFields `json:",omitempty"`
}

func (*ConsumerGroupHeartbeatResponse) Key() APIKey      { return ConsumerGroupHeartbeat }
func (*ConsumerGroupHeartbeatResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *ConsumerGroupHeartbeatResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(ConsumerGroupHeartbeat, true, version); err != nil {
		return dst, err
	}
	b := dst
	b = AppendInt32(b, m.ThrottleTimeMs)
	b = AppendInt16(b, int16(m.ErrorCode))
	b = w.NullableString(b, "ErrorMessage", m.ErrorMessage)
	b = w.NullableString(b, "MemberId", m.MemberId)
	b = AppendInt32(b, m.MemberEpoch)
	b = AppendInt32(b, m.HeartbeatIntervalMs)
	if m.Assignment == nil {
		b = AppendInt8(b, -1)
	} else {
		b = AppendInt8(b, 1)
		b = appendTopicPartitions(&w, b, m.Assignment.TopicPartitions, false)
		b = w.UnknownTags(b, "Assignment.TaggedFields", m.Assignment.UnknownTags)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *ConsumerGroupHeartbeatResponse) ReadFrom(r *Reader) {
	m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.ErrorMessage = r.NullableString("ErrorMessage", m.ErrorMessage)
	m.MemberId = r.NullableString("MemberId", m.MemberId)
	m.MemberEpoch = r.Int32("MemberEpoch")
	m.HeartbeatIntervalMs = r.Int32("HeartbeatIntervalMs")
	// A nullable struct: an int8 marker, negative for null.
	if r.Int8("Assignment") < 0 || r.Err() != nil {
		m.Assignment = nil
	} else {
		if m.Assignment == nil {
			m.Assignment = new(ConsumerGroupHeartbeatAssignment)
		}
		a := m.Assignment
		a.TopicPartitions = readTopicPartitions(r, "Assignment.TopicPartitions", a.TopicPartitions, false)
		a.UnknownTags = r.UnknownTags("Assignment.TaggedFields", a.UnknownTags)
	}
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupHeartbeatResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupHeartbeatResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupHeartbeat, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
