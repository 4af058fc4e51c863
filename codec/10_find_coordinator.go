package codec

// FindCoordinator (api key 10), versions 0-6, flexible from v3. Like
// Metadata it is a routing api (API.Routing): ghostcheck's coordinator does
// not serve it, and the recording proxy rewrites the host and port of the
// coordinators in its answers.
//
//	v0     Key                       → ErrorCode, NodeId, Host, Port
//	v1     + KeyType                 → + ThrottleTimeMs (first), ErrorMessage
//	v2     same
//	v3     flexible
//	v4     CoordinatorKeys replace Key (KIP-699, batched)
//	                                 → Coordinators[Key, NodeId, Host, Port,
//	                                   ErrorCode, ErrorMessage] replace the
//	                                   single answer
//	v5     same (TRANSACTION_ABORTABLE may be answered, KIP-890)
//	v6     same (KeyType 2, share groups, KIP-932)

// FindCoordinator is api key 10.
const FindCoordinator APIKey = 10

// findCoordinatorAPI is FindCoordinator's row of the api table.
var findCoordinatorAPI = defineAPI[FindCoordinatorRequest, FindCoordinatorResponse](API{Key: FindCoordinator, Name: "FindCoordinator", MinVersion: 0, MaxVersion: 6, FlexibleFrom: 3, Routing: true})

// Coordinator key types of FindCoordinatorRequest.KeyType.
const (
	CoordinatorKeyGroup       int8 = 0
	CoordinatorKeyTransaction int8 = 1
	CoordinatorKeyShare       int8 = 2
)

// FindCoordinatorRequest asks which broker coordinates a group or a
// transactional id: one key at v0-v3, a batch from v4.
type FindCoordinatorRequest struct {
	// CoordinatorKey is Kafka's Key, renamed because Key is the Message
	// method (JSON keeps Kafka's name). It is v0-v3, and must be "" from
	// v4.
	CoordinatorKey string `json:"Key"`
	// KeyType is v1+; it must be 0 (group) at v0.
	KeyType int8
	// CoordinatorKeys is v4+; it must be empty before.
	CoordinatorKeys []string
	UnknownTags     TaggedFields `json:",omitempty"`
}

func (*FindCoordinatorRequest) Key() APIKey      { return FindCoordinator }
func (*FindCoordinatorRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *FindCoordinatorRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(FindCoordinator, false, version); err != nil {
		return dst, err
	}
	b := dst
	if version <= 3 {
		b = w.String(b, "Key", m.CoordinatorKey)
	} else {
		w.Absent("Key", m.CoordinatorKey == "", false)
	}
	if version >= 1 {
		b = AppendInt8(b, m.KeyType)
	} else {
		w.Absent("KeyType", m.KeyType == 0, false)
	}
	if version >= 4 {
		b = w.StringArray(b, "CoordinatorKeys", m.CoordinatorKeys, false)
	} else {
		w.Absent("CoordinatorKeys", len(m.CoordinatorKeys) == 0, false)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *FindCoordinatorRequest) ReadFrom(r *Reader) {
	v := r.Version()
	key := m.CoordinatorKey
	m.CoordinatorKey = ""
	if v <= 3 {
		m.CoordinatorKey = r.String("Key", key)
	}
	m.KeyType = 0
	if v >= 1 {
		m.KeyType = r.Int8("KeyType")
	}
	keys := m.CoordinatorKeys
	m.CoordinatorKeys = nil
	if v >= 4 {
		m.CoordinatorKeys = r.StringArray("CoordinatorKeys", keys, false)
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *FindCoordinatorRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *FindCoordinatorRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, FindCoordinator, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// FindCoordinatorResponse names the coordinator: one answer at v0-v3 (the
// top-level fields), one per key from v4 (Coordinators).
type FindCoordinatorResponse struct {
	// ThrottleTimeMs is v1+ (ignorable).
	ThrottleTimeMs int32
	// ErrorCode, NodeId, Host and Port are v0-v3, and must hold their
	// defaults (0, 0, "", 0) from v4.
	ErrorCode ErrorCode
	// ErrorMessage is v1-v3 (ignorable).
	ErrorMessage NullableString
	NodeId       int32
	Host         string
	Port         int32
	// Coordinators is v4+; it must be empty before.
	Coordinators []FindCoordinatorCoordinator
	UnknownTags  TaggedFields `json:",omitempty"`
}

// FindCoordinatorCoordinator is the answer for one key (v4+).
type FindCoordinatorCoordinator struct {
	Key          string
	NodeId       int32
	Host         string
	Port         int32
	ErrorCode    ErrorCode
	ErrorMessage NullableString
	UnknownTags  TaggedFields `json:",omitempty"`
}

func (*FindCoordinatorResponse) Key() APIKey      { return FindCoordinator }
func (*FindCoordinatorResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *FindCoordinatorResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(FindCoordinator, true, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 1 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	if version >= 4 {
		w.Absent("ErrorCode", m.ErrorCode == None, false)
		w.Absent("NodeId", m.NodeId == 0, false)
		w.Absent("Host", m.Host == "", false)
		w.Absent("Port", m.Port == 0, false)
		b = w.ArrayLen(b, len(m.Coordinators))
		for i := range m.Coordinators {
			c := &m.Coordinators[i]
			b = w.String(b, "Coordinators.Key", c.Key)
			b = AppendInt32(b, c.NodeId)
			b = w.String(b, "Coordinators.Host", c.Host)
			b = AppendInt32(b, c.Port)
			b = AppendInt16(b, int16(c.ErrorCode))
			b = w.NullableString(b, "Coordinators.ErrorMessage", c.ErrorMessage)
			b = w.UnknownTags(b, "Coordinators.TaggedFields", c.UnknownTags)
		}
		b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
		return finish(b, &w)
	}
	b = AppendInt16(b, int16(m.ErrorCode))
	if version >= 1 {
		b = w.NullableString(b, "ErrorMessage", m.ErrorMessage)
	}
	b = AppendInt32(b, m.NodeId)
	b = w.String(b, "Host", m.Host)
	b = AppendInt32(b, m.Port)
	w.Absent("Coordinators", len(m.Coordinators) == 0, false)
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *FindCoordinatorResponse) ReadFrom(r *Reader) {
	v := r.Version()
	m.ThrottleTimeMs = 0
	if v >= 1 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	message, host := m.ErrorMessage, m.Host
	m.ErrorCode, m.ErrorMessage, m.NodeId, m.Host, m.Port = None, Null, 0, "", 0
	if v <= 3 {
		m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
		if v >= 1 {
			m.ErrorMessage = r.NullableString("ErrorMessage", message)
		}
		m.NodeId = r.Int32("NodeId")
		m.Host = r.String("Host", host)
		m.Port = r.Int32("Port")
		m.Coordinators = nil
	} else {
		// Key 1, NodeId 4, Host 1, Port 4, ErrorCode 2, ErrorMessage 1,
		// tags 1 (v4+ is flexible).
		n := r.ArrayLen("Coordinators", 14, false)
		m.Coordinators = resize(m.Coordinators, n)
		for i := range m.Coordinators {
			c := &m.Coordinators[i]
			c.Key = r.String("Coordinators.Key", c.Key)
			c.NodeId = r.Int32("Coordinators.NodeId")
			c.Host = r.String("Coordinators.Host", c.Host)
			c.Port = r.Int32("Coordinators.Port")
			c.ErrorCode = ErrorCode(r.Int16("Coordinators.ErrorCode"))
			c.ErrorMessage = r.NullableString("Coordinators.ErrorMessage", c.ErrorMessage)
			c.UnknownTags = r.UnknownTags("Coordinators.TaggedFields", c.UnknownTags)
		}
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *FindCoordinatorResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *FindCoordinatorResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, FindCoordinator, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
