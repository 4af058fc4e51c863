package codec

import "strconv"

// The consumer protocol: what a classic consumer puts in the opaque bytes
// of the classic group protocol, ConsumerProtocolSubscription in each
// JoinGroup protocol's Metadata (and so in the leader's Members and in
// DescribeGroups' MemberMetadata) and ConsumerProtocolAssignment in the
// leader's SyncGroup Assignments (and so in every SyncGroup answer and in
// DescribeGroups' MemberAssignment). They are data, not apis: no key, no
// header, never flexible; each starts with its own int16 version.
//
//	ConsumerProtocolSubscription
//	v0     Topics[string], UserData (nullable bytes)
//	v1     + OwnedPartitions[Topic, Partitions[int32]] (ignorable)
//	v2     + GenerationId (int32, default -1, ignorable)
//	v3     + RackId (nullable string, default null, ignorable)
//
//	ConsumerProtocolAssignment
//	v0-v3  AssignedPartitions[Topic, Partitions[int32]], UserData (nullable bytes)
//	       (v2 and v3 change nothing here: they follow the subscription's)
//
// A version above 3 is read as v3 and the bytes after it are left unread,
// as Kafka's ConsumerProtocol does (newer versions may only add fields at
// the end); a negative version is ErrUnsupportedVersion. A field the
// version lacks reads as its default and is dropped on write (every field
// added after v0 is ignorable).

// ConsumerProtocolMaxVersion is the highest version of both consumer
// protocol structures this codec knows; a higher one is read as it.
const ConsumerProtocolMaxVersion int16 = 3

// ConsumerProtocolSubscription is a classic consumer's subscription, the
// Metadata of its JoinGroup protocol.
type ConsumerProtocolSubscription struct {
	Topics []string
	// UserData is nullable: nil is null.
	UserData []byte
	// OwnedPartitions is v1+ (ignorable): what the member owns.
	OwnedPartitions []ConsumerProtocolTopicPartitions
	// GenerationId is v2+ (ignorable); -1 when absent.
	GenerationId int32
	// RackId is v3+ (ignorable); null when absent.
	RackId NullableString
}

// ConsumerProtocolAssignment is what the leader assigns one member, the
// Assignment of its SyncGroup entry.
type ConsumerProtocolAssignment struct {
	AssignedPartitions []ConsumerProtocolTopicPartitions
	// UserData is nullable: nil is null.
	UserData []byte
}

// ConsumerProtocolTopicPartitions is one topic's partitions, owned or
// assigned.
type ConsumerProtocolTopicPartitions struct {
	Topic      string
	Partitions []int32
}

const (
	subscriptionName = "ConsumerProtocolSubscription"
	assignmentName   = "ConsumerProtocolAssignment"
)

// AppendTo appends the subscription encoded at version, the version first.
// Fields the version lacks are dropped (all are ignorable).
func (m *ConsumerProtocolSubscription) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := beginConsumerProtocol(&w, subscriptionName, version); err != nil {
		return dst, err
	}
	b := AppendInt16(dst, version)
	b = w.StringArray(b, "Topics", m.Topics, false)
	b = w.NullableBytes(b, m.UserData)
	if version >= 1 {
		b = appendConsumerTopicPartitions(&w, b, "OwnedPartitions", m.OwnedPartitions)
	}
	if version >= 2 {
		b = AppendInt32(b, m.GenerationId)
	}
	if version >= 3 {
		b = w.NullableString(b, "RackId", m.RackId)
	}
	return finish(b, &w)
}

// Decode decodes b, version first, into m (overwriting every field) and
// returns the version b carries.
func (m *ConsumerProtocolSubscription) Decode(b []byte, opts DecodeOptions) (int16, error) {
	r, version, err := consumerProtocolReader(b, subscriptionName, opts)
	if err != nil {
		return version, err
	}
	v := r.Version()
	m.Topics = r.StringArray("Topics", m.Topics, false)
	m.UserData = r.NullableBytes("UserData")
	m.OwnedPartitions = nil
	if v >= 1 {
		m.OwnedPartitions = readConsumerTopicPartitions(&r, "OwnedPartitions", m.OwnedPartitions)
	}
	m.GenerationId = -1
	if v >= 2 {
		m.GenerationId = r.Int32("GenerationId")
	}
	rack := m.RackId
	m.RackId = Null
	if v >= 3 {
		m.RackId = r.NullableString("RackId", rack)
	}
	return version, finishConsumerProtocol(&r, version)
}

// AppendTo appends the assignment encoded at version, the version first.
func (m *ConsumerProtocolAssignment) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := beginConsumerProtocol(&w, assignmentName, version); err != nil {
		return dst, err
	}
	b := AppendInt16(dst, version)
	b = appendConsumerTopicPartitions(&w, b, "AssignedPartitions", m.AssignedPartitions)
	b = w.NullableBytes(b, m.UserData)
	return finish(b, &w)
}

// Decode decodes b, version first, into m (overwriting every field) and
// returns the version b carries.
func (m *ConsumerProtocolAssignment) Decode(b []byte, opts DecodeOptions) (int16, error) {
	r, version, err := consumerProtocolReader(b, assignmentName, opts)
	if err != nil {
		return version, err
	}
	m.AssignedPartitions = readConsumerTopicPartitions(&r, "AssignedPartitions", m.AssignedPartitions)
	m.UserData = r.NullableBytes("UserData")
	return version, finishConsumerProtocol(&r, version)
}

// beginConsumerProtocol sets w up for one of the structures at version (0
// to ConsumerProtocolMaxVersion: a writer writes only versions it knows).
func beginConsumerProtocol(w *Writer, name string, version int16) error {
	w.reset(name, version, false)
	if version < 0 || version > ConsumerProtocolMaxVersion {
		return &Error{Kind: ErrUnsupportedVersion, Message: name, Version: version, Offset: -1,
			Detail: "versions 0-" + strconv.Itoa(int(ConsumerProtocolMaxVersion))}
	}
	return nil
}

// consumerProtocolReader reads the version prefix of b and returns a Reader
// positioned after it, at the version the body is read as (a version above
// ConsumerProtocolMaxVersion is read as that).
func consumerProtocolReader(b []byte, name string, opts DecodeOptions) (Reader, int16, error) {
	r := NewReader(b, name, 0, false, opts)
	version := r.Int16("Version")
	if err := r.Err(); err != nil {
		return r, 0, err
	}
	if version < 0 {
		r.Fail(ErrUnsupportedVersion, "Version", 0, "version "+strconv.Itoa(int(version)))
		return r, version, r.Err()
	}
	r.version = min(version, ConsumerProtocolMaxVersion)
	return r, version, nil
}

// finishConsumerProtocol ends a decode: a version this codec knows must end
// where the input does (in strict mode); a newer one may carry fields after
// the ones read.
func finishConsumerProtocol(r *Reader, version int16) error {
	if version > ConsumerProtocolMaxVersion {
		return r.Err()
	}
	return r.Finish()
}

func appendConsumerTopicPartitions(w *Writer, b []byte, field string, tps []ConsumerProtocolTopicPartitions) []byte {
	b = w.ArrayLen(b, len(tps))
	for i := range tps {
		b = w.String(b, field+".Topic", tps[i].Topic)
		b = w.Int32Array(b, tps[i].Partitions, false)
	}
	return b
}

func readConsumerTopicPartitions(r *Reader, field string, dst []ConsumerProtocolTopicPartitions) []ConsumerProtocolTopicPartitions {
	// Topic (2 bytes) and Partitions' count (4) at least.
	n := r.ArrayLen(field, 6, false)
	dst = resize(dst, n)
	for i := range dst {
		tp := &dst[i]
		tp.Topic = r.String(field+".Topic", tp.Topic)
		tp.Partitions = r.Int32Array(field+".Partitions", tp.Partitions, false)
		if len(tp.Partitions) == 0 {
			tp.Partitions = nil // empty and absent are one for a non-nullable array
		}
	}
	return dst
}
