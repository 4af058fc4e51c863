package codec

// ConsumerGroupDescribe (api key 69), versions 0-1, flexible from v0.
// v1 adds the member's MemberType (KIP-1099). It is how a checker sees a
// group's members, and so its ghosts, from outside (docs/PROTOCOL.md §B7.2).

// ConsumerGroupDescribe is api key 69.
const ConsumerGroupDescribe APIKey = 69

// consumerGroupDescribeAPI is ConsumerGroupDescribe's row of the api table.
var consumerGroupDescribeAPI = defineAPI[ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse](API{Key: ConsumerGroupDescribe, Name: "ConsumerGroupDescribe", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0})

// ConsumerGroupDescribeRequest asks for the state of some groups.
type ConsumerGroupDescribeRequest struct {
	GroupIds                    []string
	IncludeAuthorizedOperations bool
	UnknownTags                 TaggedFields `json:",omitempty"`
}

func (*ConsumerGroupDescribeRequest) Key() APIKey      { return ConsumerGroupDescribe }
func (*ConsumerGroupDescribeRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *ConsumerGroupDescribeRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(ConsumerGroupDescribe, false, version); err != nil {
		return dst, err
	}
	b := dst
	b = w.StringArray(b, "GroupIds", m.GroupIds, false)
	b = AppendBool(b, m.IncludeAuthorizedOperations)
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *ConsumerGroupDescribeRequest) ReadFrom(r *Reader) {
	m.GroupIds = r.StringArray("GroupIds", m.GroupIds, false)
	m.IncludeAuthorizedOperations = r.Bool("IncludeAuthorizedOperations")
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupDescribeRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupDescribeRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupDescribe, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// ConsumerGroupDescribeResponse describes each requested group.
type ConsumerGroupDescribeResponse struct {
	ThrottleTimeMs int32
	Groups         []DescribedGroup
	UnknownTags    TaggedFields `json:",omitempty"`
}

// AuthorizedOperationsOmitted is the AuthorizedOperations value when they
// were not requested (Kafka's default, INT32_MIN).
const AuthorizedOperationsOmitted int32 = -2147483648

// DescribedGroup is one group of a ConsumerGroupDescribeResponse.
type DescribedGroup struct {
	ErrorCode            ErrorCode
	ErrorMessage         NullableString
	GroupId              string
	GroupState           string
	GroupEpoch           int32
	AssignmentEpoch      int32
	AssignorName         string
	Members              []DescribedMember
	AuthorizedOperations int32
	UnknownTags          TaggedFields `json:",omitempty"`
}

// Member types of DescribedMember.MemberType (v1+, KIP-1099).
const (
	MemberTypeUnknown  int8 = -1
	MemberTypeClassic  int8 = 0
	MemberTypeConsumer int8 = 1
)

// DescribedMember is one member of a described group.
type DescribedMember struct {
	MemberId             string
	InstanceId           NullableString
	RackId               NullableString
	MemberEpoch          int32
	ClientId             string
	ClientHost           string
	SubscribedTopicNames []string
	SubscribedTopicRegex NullableString
	Assignment           DescribedAssignment
	TargetAssignment     DescribedAssignment
	// MemberType is v1+ (ignorable; default -1).
	MemberType  int8
	UnknownTags TaggedFields `json:",omitempty"`
}

// DescribedAssignment is a member's current or target assignment.
type DescribedAssignment struct {
	TopicPartitions []DescribedTopicPartitions
	UnknownTags     TaggedFields `json:",omitempty"`
}

// DescribedTopicPartitions is one topic of a DescribedAssignment.
type DescribedTopicPartitions struct {
	TopicId     UUID
	TopicName   string
	Partitions  []int32
	UnknownTags TaggedFields `json:",omitempty"`
}

func (*ConsumerGroupDescribeResponse) Key() APIKey      { return ConsumerGroupDescribe }
func (*ConsumerGroupDescribeResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *ConsumerGroupDescribeResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(ConsumerGroupDescribe, true, version); err != nil {
		return dst, err
	}
	b := dst
	b = AppendInt32(b, m.ThrottleTimeMs)
	b = w.ArrayLen(b, len(m.Groups))
	for i := range m.Groups {
		g := &m.Groups[i]
		b = AppendInt16(b, int16(g.ErrorCode))
		b = w.NullableString(b, "Groups.ErrorMessage", g.ErrorMessage)
		b = w.String(b, "Groups.GroupId", g.GroupId)
		b = w.String(b, "Groups.GroupState", g.GroupState)
		b = AppendInt32(b, g.GroupEpoch)
		b = AppendInt32(b, g.AssignmentEpoch)
		b = w.String(b, "Groups.AssignorName", g.AssignorName)
		b = w.ArrayLen(b, len(g.Members))
		for j := range g.Members {
			mb := &g.Members[j]
			b = w.String(b, "Members.MemberId", mb.MemberId)
			b = w.NullableString(b, "Members.InstanceId", mb.InstanceId)
			b = w.NullableString(b, "Members.RackId", mb.RackId)
			b = AppendInt32(b, mb.MemberEpoch)
			b = w.String(b, "Members.ClientId", mb.ClientId)
			b = w.String(b, "Members.ClientHost", mb.ClientHost)
			b = w.StringArray(b, "Members.SubscribedTopicNames", mb.SubscribedTopicNames, false)
			b = w.NullableString(b, "Members.SubscribedTopicRegex", mb.SubscribedTopicRegex)
			b = appendDescribedAssignment(&w, b, &mb.Assignment)
			b = appendDescribedAssignment(&w, b, &mb.TargetAssignment)
			if version >= 1 {
				b = AppendInt8(b, mb.MemberType)
			} else {
				w.Absent("Members.MemberType", mb.MemberType == MemberTypeUnknown, true)
			}
			b = w.UnknownTags(b, "Members.TaggedFields", mb.UnknownTags)
		}
		b = AppendInt32(b, g.AuthorizedOperations)
		b = w.UnknownTags(b, "Groups.TaggedFields", g.UnknownTags)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

func appendDescribedAssignment(w *Writer, b []byte, a *DescribedAssignment) []byte {
	b = w.ArrayLen(b, len(a.TopicPartitions))
	for i := range a.TopicPartitions {
		tp := &a.TopicPartitions[i]
		b = AppendUUID(b, tp.TopicId)
		b = w.String(b, "TopicPartitions.TopicName", tp.TopicName)
		b = w.Int32Array(b, tp.Partitions, false)
		b = w.UnknownTags(b, "TopicPartitions.TaggedFields", tp.UnknownTags)
	}
	return w.UnknownTags(b, "Assignment.TaggedFields", a.UnknownTags)
}

// ReadFrom implements Message.
func (m *ConsumerGroupDescribeResponse) ReadFrom(r *Reader) {
	m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	// A group is at least: ErrorCode 2, ErrorMessage 1, three strings 3,
	// two epochs 8, Members 1, AuthorizedOperations 4, tags 1.
	n := r.ArrayLen("Groups", 20, false)
	minMemberSize := 16
	if r.Version() >= 1 {
		minMemberSize = 17
	}
	m.Groups = resize(m.Groups, n)
	for i := range m.Groups {
		g := &m.Groups[i]
		g.ErrorCode = ErrorCode(r.Int16("Groups.ErrorCode"))
		g.ErrorMessage = r.NullableString("Groups.ErrorMessage", g.ErrorMessage)
		g.GroupId = r.String("Groups.GroupId", g.GroupId)
		g.GroupState = r.String("Groups.GroupState", g.GroupState)
		g.GroupEpoch = r.Int32("Groups.GroupEpoch")
		g.AssignmentEpoch = r.Int32("Groups.AssignmentEpoch")
		g.AssignorName = r.String("Groups.AssignorName", g.AssignorName)
		// A member is at least MemberId 1, InstanceId 1, RackId 1,
		// MemberEpoch 4, ClientId 1, ClientHost 1, SubscribedTopicNames 1,
		// SubscribedTopicRegex 1, two assignments of 2, tags 1: 16 bytes,
		// and 17 from v1 with MemberType. Assuming 17 at v0 would reject
		// valid responses with many small members.
		nm := r.ArrayLen("Members", minMemberSize, false)
		g.Members = resize(g.Members, nm)
		for j := range g.Members {
			mb := &g.Members[j]
			mb.MemberId = r.String("Members.MemberId", mb.MemberId)
			mb.InstanceId = r.NullableString("Members.InstanceId", mb.InstanceId)
			mb.RackId = r.NullableString("Members.RackId", mb.RackId)
			mb.MemberEpoch = r.Int32("Members.MemberEpoch")
			mb.ClientId = r.String("Members.ClientId", mb.ClientId)
			mb.ClientHost = r.String("Members.ClientHost", mb.ClientHost)
			mb.SubscribedTopicNames = r.StringArray("Members.SubscribedTopicNames", mb.SubscribedTopicNames, false)
			mb.SubscribedTopicRegex = r.NullableString("Members.SubscribedTopicRegex", mb.SubscribedTopicRegex)
			readDescribedAssignment(r, &mb.Assignment)
			readDescribedAssignment(r, &mb.TargetAssignment)
			mb.MemberType = MemberTypeUnknown
			if r.Version() >= 1 {
				mb.MemberType = r.Int8("Members.MemberType")
			}
			mb.UnknownTags = r.UnknownTags("Members.TaggedFields", mb.UnknownTags)
		}
		g.AuthorizedOperations = r.Int32("Groups.AuthorizedOperations")
		g.UnknownTags = r.UnknownTags("Groups.TaggedFields", g.UnknownTags)
	}
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupDescribeResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupDescribeResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupDescribe, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

func readDescribedAssignment(r *Reader, a *DescribedAssignment) {
	// TopicId 16 + TopicName 1 + Partitions 1 + tags 1.
	n := r.ArrayLen("Assignment.TopicPartitions", 19, false)
	a.TopicPartitions = resize(a.TopicPartitions, n)
	for i := range a.TopicPartitions {
		tp := &a.TopicPartitions[i]
		tp.TopicId = r.UUID("TopicPartitions.TopicId")
		tp.TopicName = r.String("TopicPartitions.TopicName", tp.TopicName)
		tp.Partitions = r.Int32Array("TopicPartitions.Partitions", tp.Partitions, false)
		tp.UnknownTags = r.UnknownTags("TopicPartitions.TaggedFields", tp.UnknownTags)
	}
	a.UnknownTags = r.UnknownTags("Assignment.TaggedFields", a.UnknownTags)
}
