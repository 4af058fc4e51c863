package codec

// PushTelemetry (api key 72), flexible from v0. v1 drops ClientInstanceId
// from the request (KIP-1313 as ghostcheck implements it, docs/PROTOCOL.md A2);
// the broker takes the id from the request header.

// PushTelemetry is api key 72.
const PushTelemetry APIKey = 72

// pushTelemetryAPI is PushTelemetry's row of the api table.
var pushTelemetryAPI = defineAPI[PushTelemetryRequest, PushTelemetryResponse](API{Key: PushTelemetry, Name: "PushTelemetry", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0})

// PushTelemetryRequest pushes a batch of client metrics.
type PushTelemetryRequest struct {
	// ClientInstanceId is v0 only.
	ClientInstanceId UUID
	SubscriptionId   int32
	Terminating      bool
	CompressionType  int8
	Metrics          []byte
	UnknownTags      TaggedFields `json:",omitempty"`
}

func (*PushTelemetryRequest) Key() APIKey      { return PushTelemetry }
func (*PushTelemetryRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *PushTelemetryRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(PushTelemetry, false, version); err != nil {
		return dst, err
	}
	b := dst
	if version == 0 {
		b = AppendUUID(b, m.ClientInstanceId)
	} else {
		w.Absent("ClientInstanceId", m.ClientInstanceId.IsZero(), false)
	}
	b = AppendInt32(b, m.SubscriptionId)
	b = AppendBool(b, m.Terminating)
	b = AppendInt8(b, m.CompressionType)
	b = w.Bytes(b, m.Metrics)
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *PushTelemetryRequest) ReadFrom(r *Reader) {
	m.ClientInstanceId = UUID{}
	if r.Version() == 0 {
		m.ClientInstanceId = r.UUID("ClientInstanceId")
	}
	m.SubscriptionId = r.Int32("SubscriptionId")
	m.Terminating = r.Bool("Terminating")
	m.CompressionType = r.Int8("CompressionType")
	m.Metrics = r.Bytes("Metrics")
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *PushTelemetryRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *PushTelemetryRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, PushTelemetry, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// PushTelemetryResponse answers a push.
type PushTelemetryResponse struct {
	ThrottleTimeMs int32
	ErrorCode      ErrorCode
	UnknownTags    TaggedFields `json:",omitempty"`
}

func (*PushTelemetryResponse) Key() APIKey      { return PushTelemetry }
func (*PushTelemetryResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *PushTelemetryResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(PushTelemetry, true, version); err != nil {
		return dst, err
	}
	b := dst
	b = AppendInt32(b, m.ThrottleTimeMs)
	b = AppendInt16(b, int16(m.ErrorCode))
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *PushTelemetryResponse) ReadFrom(r *Reader) {
	m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *PushTelemetryResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *PushTelemetryResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, PushTelemetry, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
