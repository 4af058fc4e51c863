package codec

// Metadata (api key 3), versions 0-13, flexible from v9. ghostcheck's
// coordinator does not serve it (it is a routing api, see API.Routing); the
// recording proxy reads the brokers' answers and rewrites their hosts and
// ports, so every version a current client sends is here.
//
//	v0     Topics[Name], empty = all topics → Brokers[NodeId, Host, Port],
//	       Topics[ErrorCode, Name, Partitions[ErrorCode, PartitionIndex,
//	       LeaderId, ReplicaNodes, IsrNodes]]
//	v1     Topics nullable: null = all, empty = none
//	                                       → + Brokers.Rack, ControllerId, Topics.IsInternal
//	v2                                     → + ClusterId
//	v3                                     → + ThrottleTimeMs (first)
//	v4     + AllowAutoTopicCreation
//	v5                                     → + Partitions.OfflineReplicas
//	v6     same
//	v7                                     → + Partitions.LeaderEpoch
//	v8     + IncludeClusterAuthorizedOperations, IncludeTopicAuthorizedOperations
//	                                       → + Topics.TopicAuthorizedOperations, ClusterAuthorizedOperations
//	v9     flexible
//	v10    + Topics.TopicId, Topics.Name nullable
//	                                       → + Topics.TopicId
//	v11    - IncludeClusterAuthorizedOperations (KIP-700)
//	                                       → - ClusterAuthorizedOperations
//	v12                                    → Topics.Name nullable (topics asked by id)
//	v13                                    → + ErrorCode (top level, KIP-1102)
//
// A field a version lacks reads as its Kafka default (AllowAutoTopicCreation
// true, ControllerId -1, LeaderEpoch -1, authorized operations INT32_MIN),
// and is written only when it holds that default or is ignorable.

// Metadata is api key 3.
const Metadata APIKey = 3

// metadataAPI is Metadata's row of the api table.
var metadataAPI = defineAPI[MetadataRequest, MetadataResponse](API{Key: Metadata, Name: "Metadata", MinVersion: 0, MaxVersion: 13, FlexibleFrom: 9, Routing: true})

// AuthorizedOperationsUnknown is the default of the authorized-operations
// bitfields of MetadataResponse (INT32_MIN): not requested, or not in the
// version.
const AuthorizedOperationsUnknown int32 = -2147483648

// MetadataRequest asks for brokers and topics.
type MetadataRequest struct {
	// Topics to describe. At v0 an empty array (nil) asks for all topics.
	// From v1 the array is nullable: nil (null) asks for all topics and an
	// empty non-nil array for none.
	Topics []MetadataRequestTopic
	// AllowAutoTopicCreation is v4+; older versions mean true, its
	// default, and cannot carry false.
	AllowAutoTopicCreation bool
	// IncludeClusterAuthorizedOperations is v8-v10.
	IncludeClusterAuthorizedOperations bool
	// IncludeTopicAuthorizedOperations is v8+.
	IncludeTopicAuthorizedOperations bool
	UnknownTags                      TaggedFields `json:",omitempty"`
}

// MetadataRequestTopic names one topic, by name or (v12+) by id.
type MetadataRequestTopic struct {
	// TopicId is v10+ (ignorable); zero when asking by name.
	TopicId UUID
	// Name is nullable from v10; never null before.
	Name        NullableString
	UnknownTags TaggedFields `json:",omitempty"`
}

// NewMetadataRequest returns a request with Kafka's defaults set
// (AllowAutoTopicCreation true) asking for all topics.
func NewMetadataRequest() *MetadataRequest {
	return &MetadataRequest{AllowAutoTopicCreation: true}
}

func (*MetadataRequest) Key() APIKey      { return Metadata }
func (*MetadataRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *MetadataRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(Metadata, false, version); err != nil {
		return dst, err
	}
	b := dst
	if m.Topics == nil && version >= 1 {
		b = w.NullArray(b)
	} else {
		b = w.ArrayLen(b, len(m.Topics))
	}
	for i := range m.Topics {
		t := &m.Topics[i]
		if version >= 10 {
			b = AppendUUID(b, t.TopicId)
		}
		b = w.NullableStringAt(b, "Topics.Name", t.Name, version >= 10)
		b = w.UnknownTags(b, "Topics.TaggedFields", t.UnknownTags)
	}
	if version >= 4 {
		b = AppendBool(b, m.AllowAutoTopicCreation)
	} else {
		w.Absent("AllowAutoTopicCreation", m.AllowAutoTopicCreation, false)
	}
	if version >= 8 && version <= 10 {
		b = AppendBool(b, m.IncludeClusterAuthorizedOperations)
	} else {
		w.Absent("IncludeClusterAuthorizedOperations", !m.IncludeClusterAuthorizedOperations, false)
	}
	if version >= 8 {
		b = AppendBool(b, m.IncludeTopicAuthorizedOperations)
	} else {
		w.Absent("IncludeTopicAuthorizedOperations", !m.IncludeTopicAuthorizedOperations, false)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *MetadataRequest) ReadFrom(r *Reader) {
	v := r.Version()
	// Name (2 bytes classic, 1 compact) + tags (1, flexible) + TopicId (16, v10+).
	min := 2
	if v >= 10 {
		min = 18
	}
	n := r.ArrayLen("Topics", min, v >= 1)
	if n < 0 {
		m.Topics = nil
	} else {
		m.Topics = sized(m.Topics, n, v >= 1)
	}
	for i := range m.Topics {
		t := &m.Topics[i]
		t.TopicId = UUID{}
		if v >= 10 {
			t.TopicId = r.UUID("Topics.TopicId")
		}
		t.Name = r.NullableStringAt("Topics.Name", t.Name, v >= 10)
		tags := t.UnknownTags
		t.UnknownTags = nil
		if r.Flexible() {
			t.UnknownTags = r.UnknownTags("Topics.TaggedFields", tags)
		}
	}
	m.AllowAutoTopicCreation = true
	if v >= 4 {
		m.AllowAutoTopicCreation = r.Bool("AllowAutoTopicCreation")
	}
	m.IncludeClusterAuthorizedOperations = false
	if v >= 8 && v <= 10 {
		m.IncludeClusterAuthorizedOperations = r.Bool("IncludeClusterAuthorizedOperations")
	}
	m.IncludeTopicAuthorizedOperations = false
	if v >= 8 {
		m.IncludeTopicAuthorizedOperations = r.Bool("IncludeTopicAuthorizedOperations")
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *MetadataRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *MetadataRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, Metadata, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// MetadataResponse lists the cluster's brokers and the topics asked for.
// Brokers' Host and Port, and the partitions' leaders and replicas that
// name them by NodeId, are what a proxy rewrites.
type MetadataResponse struct {
	// ThrottleTimeMs is v3+ (ignorable).
	ThrottleTimeMs int32
	Brokers        []MetadataResponseBroker
	// ClusterId is v2+ (ignorable), default null.
	ClusterId NullableString
	// ControllerId is v1+ (ignorable), default -1.
	ControllerId int32
	Topics       []MetadataResponseTopic
	// ClusterAuthorizedOperations is v8-v10, default
	// AuthorizedOperationsUnknown.
	ClusterAuthorizedOperations int32
	// ErrorCode is v13+ (ignorable): a top-level error (KIP-1102), such as
	// REBOOTSTRAP_REQUIRED.
	ErrorCode   ErrorCode
	UnknownTags TaggedFields `json:",omitempty"`
}

// MetadataResponseBroker is one broker: where clients connect to it.
type MetadataResponseBroker struct {
	NodeId int32
	Host   string
	Port   int32
	// Rack is v1+ (ignorable), default null.
	Rack        NullableString
	UnknownTags TaggedFields `json:",omitempty"`
}

// MetadataResponseTopic is one topic.
type MetadataResponseTopic struct {
	ErrorCode ErrorCode
	// Name is nullable from v12 (a topic asked by an unknown id); never
	// null before.
	Name NullableString
	// TopicId is v10+ (ignorable).
	TopicId UUID
	// IsInternal is v1+ (ignorable).
	IsInternal bool
	Partitions []MetadataResponsePartition
	// TopicAuthorizedOperations is v8+, default
	// AuthorizedOperationsUnknown.
	TopicAuthorizedOperations int32
	UnknownTags               TaggedFields `json:",omitempty"`
}

// MetadataResponsePartition is one partition: its leader and replicas by
// broker NodeId.
type MetadataResponsePartition struct {
	ErrorCode      ErrorCode
	PartitionIndex int32
	LeaderId       int32
	// LeaderEpoch is v7+ (ignorable), default -1.
	LeaderEpoch  int32
	ReplicaNodes []int32
	IsrNodes     []int32
	// OfflineReplicas is v5+ (ignorable).
	OfflineReplicas []int32
	UnknownTags     TaggedFields `json:",omitempty"`
}

// NewMetadataResponse returns a response with Kafka's defaults set
// (ControllerId -1, ClusterAuthorizedOperations unknown). Topics and
// partitions have defaults too: TopicAuthorizedOperations and LeaderEpoch.
func NewMetadataResponse() *MetadataResponse {
	return &MetadataResponse{ControllerId: -1, ClusterAuthorizedOperations: AuthorizedOperationsUnknown}
}

func (*MetadataResponse) Key() APIKey      { return Metadata }
func (*MetadataResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *MetadataResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(Metadata, true, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 3 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	b = w.ArrayLen(b, len(m.Brokers))
	for i := range m.Brokers {
		br := &m.Brokers[i]
		b = AppendInt32(b, br.NodeId)
		b = w.String(b, "Brokers.Host", br.Host)
		b = AppendInt32(b, br.Port)
		if version >= 1 {
			b = w.NullableString(b, "Brokers.Rack", br.Rack)
		}
		b = w.UnknownTags(b, "Brokers.TaggedFields", br.UnknownTags)
	}
	if version >= 2 {
		b = w.NullableString(b, "ClusterId", m.ClusterId)
	}
	if version >= 1 {
		b = AppendInt32(b, m.ControllerId)
	}
	b = w.ArrayLen(b, len(m.Topics))
	for i := range m.Topics {
		b = appendMetadataTopic(&w, b, &m.Topics[i])
	}
	if version >= 8 && version <= 10 {
		b = AppendInt32(b, m.ClusterAuthorizedOperations)
	} else {
		w.Absent("ClusterAuthorizedOperations", m.ClusterAuthorizedOperations == AuthorizedOperationsUnknown, false)
	}
	if version >= 13 {
		b = AppendInt16(b, int16(m.ErrorCode))
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

func appendMetadataTopic(w *Writer, b []byte, t *MetadataResponseTopic) []byte {
	v := w.version
	b = AppendInt16(b, int16(t.ErrorCode))
	b = w.NullableStringAt(b, "Topics.Name", t.Name, v >= 12)
	if v >= 10 {
		b = AppendUUID(b, t.TopicId)
	}
	if v >= 1 {
		b = AppendBool(b, t.IsInternal)
	}
	b = w.ArrayLen(b, len(t.Partitions))
	for i := range t.Partitions {
		p := &t.Partitions[i]
		b = AppendInt16(b, int16(p.ErrorCode))
		b = AppendInt32(b, p.PartitionIndex)
		b = AppendInt32(b, p.LeaderId)
		if v >= 7 {
			b = AppendInt32(b, p.LeaderEpoch)
		}
		b = w.Int32Array(b, p.ReplicaNodes, false)
		b = w.Int32Array(b, p.IsrNodes, false)
		if v >= 5 {
			b = w.Int32Array(b, p.OfflineReplicas, false)
		}
		b = w.UnknownTags(b, "Partitions.TaggedFields", p.UnknownTags)
	}
	if v >= 8 {
		b = AppendInt32(b, t.TopicAuthorizedOperations)
	} else {
		w.Absent("Topics.TopicAuthorizedOperations", t.TopicAuthorizedOperations == AuthorizedOperationsUnknown, false)
	}
	return w.UnknownTags(b, "Topics.TaggedFields", t.UnknownTags)
}

// ReadFrom implements Message.
func (m *MetadataResponse) ReadFrom(r *Reader) {
	v := r.Version()
	m.ThrottleTimeMs = 0
	if v >= 3 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	// NodeId 4, Host (2 classic, 1 compact), Port 4, Rack (v1+, as Host),
	// tags (1, flexible).
	minBroker := 10
	switch {
	case v >= 9:
		minBroker = 11
	case v >= 1:
		minBroker = 12
	}
	n := r.ArrayLen("Brokers", minBroker, false)
	m.Brokers = resize(m.Brokers, n)
	for i := range m.Brokers {
		br := &m.Brokers[i]
		br.NodeId = r.Int32("Brokers.NodeId")
		br.Host = r.String("Brokers.Host", br.Host)
		br.Port = r.Int32("Brokers.Port")
		rack := br.Rack
		br.Rack = Null
		if v >= 1 {
			br.Rack = r.NullableString("Brokers.Rack", rack)
		}
		br.UnknownTags = nil
		if r.Flexible() {
			br.UnknownTags = r.UnknownTags("Brokers.TaggedFields", br.UnknownTags)
		}
	}
	cluster := m.ClusterId
	m.ClusterId = Null
	if v >= 2 {
		m.ClusterId = r.NullableString("ClusterId", cluster)
	}
	m.ControllerId = -1
	if v >= 1 {
		m.ControllerId = r.Int32("ControllerId")
	}
	n = r.ArrayLen("Topics", minMetadataTopicSize(v), false)
	m.Topics = resize(m.Topics, n)
	for i := range m.Topics {
		readMetadataTopic(r, &m.Topics[i])
	}
	m.ClusterAuthorizedOperations = AuthorizedOperationsUnknown
	if v >= 8 && v <= 10 {
		m.ClusterAuthorizedOperations = r.Int32("ClusterAuthorizedOperations")
	}
	m.ErrorCode = None
	if v >= 13 {
		m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// minMetadataTopicSize is the smallest encoding of a response topic at v:
// ErrorCode 2, Name (2 classic, 1 compact), TopicId (16, v10+), IsInternal
// (1, v1+), Partitions' count (4 classic, 1 compact),
// TopicAuthorizedOperations (4, v8+), tags (1, flexible).
func minMetadataTopicSize(v int16) int {
	switch {
	case v >= 10:
		return 26
	case v >= 9:
		return 10
	case v >= 8:
		return 13
	case v >= 1:
		return 9
	}
	return 8
}

// minMetadataPartitionSize is the smallest encoding of a partition at v:
// ErrorCode 2, PartitionIndex 4, LeaderId 4, LeaderEpoch (4, v7+), two or
// three arrays (4 each classic, 1 compact; OfflineReplicas from v5), tags
// (1, flexible).
func minMetadataPartitionSize(v int16) int {
	switch {
	case v >= 9:
		return 18
	case v >= 7:
		return 26
	case v >= 5:
		return 22
	}
	return 18
}

func readMetadataTopic(r *Reader, t *MetadataResponseTopic) {
	v := r.Version()
	t.ErrorCode = ErrorCode(r.Int16("Topics.ErrorCode"))
	t.Name = r.NullableStringAt("Topics.Name", t.Name, v >= 12)
	t.TopicId = UUID{}
	if v >= 10 {
		t.TopicId = r.UUID("Topics.TopicId")
	}
	t.IsInternal = false
	if v >= 1 {
		t.IsInternal = r.Bool("Topics.IsInternal")
	}
	n := r.ArrayLen("Topics.Partitions", minMetadataPartitionSize(v), false)
	t.Partitions = resize(t.Partitions, n)
	for i := range t.Partitions {
		p := &t.Partitions[i]
		p.ErrorCode = ErrorCode(r.Int16("Partitions.ErrorCode"))
		p.PartitionIndex = r.Int32("Partitions.PartitionIndex")
		p.LeaderId = r.Int32("Partitions.LeaderId")
		p.LeaderEpoch = -1
		if v >= 7 {
			p.LeaderEpoch = r.Int32("Partitions.LeaderEpoch")
		}
		p.ReplicaNodes = r.Int32Array("Partitions.ReplicaNodes", p.ReplicaNodes, false)
		p.IsrNodes = r.Int32Array("Partitions.IsrNodes", p.IsrNodes, false)
		offline := p.OfflineReplicas
		p.OfflineReplicas = nil
		if v >= 5 {
			p.OfflineReplicas = r.Int32Array("Partitions.OfflineReplicas", offline, false)
		}
		p.UnknownTags = nil
		if r.Flexible() {
			p.UnknownTags = r.UnknownTags("Partitions.TaggedFields", p.UnknownTags)
		}
	}
	t.TopicAuthorizedOperations = AuthorizedOperationsUnknown
	if v >= 8 {
		t.TopicAuthorizedOperations = r.Int32("Topics.TopicAuthorizedOperations")
	}
	t.UnknownTags = nil
	if r.Flexible() {
		t.UnknownTags = r.UnknownTags("Topics.TaggedFields", t.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *MetadataResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *MetadataResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, Metadata, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
