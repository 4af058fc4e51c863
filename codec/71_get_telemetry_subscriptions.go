package codec

// GetTelemetrySubscriptions (api key 71), flexible from v0.
//
// v0 is KIP-714: the request carries ClientInstanceId (zero on a first call,
// which makes the broker assign one) and the response returns it. v1 is
// KIP-1313 as ghostcheck implements it (docs/PROTOCOL.md A2): ClientInstanceId
// leaves both request and response, because the client made its id before
// connecting and sends it in every request header (tag 0).

// GetTelemetrySubscriptions is api key 71.
const GetTelemetrySubscriptions APIKey = 71

// getTelemetrySubscriptionsAPI is GetTelemetrySubscriptions's row of the api table.
var getTelemetrySubscriptionsAPI = defineAPI[GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse](API{Key: GetTelemetrySubscriptions, Name: "GetTelemetrySubscriptions", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0})

// GetTelemetrySubscriptionsRequest asks for the client's metrics
// subscription.
type GetTelemetrySubscriptionsRequest struct {
	// ClientInstanceId is v0 only.
	ClientInstanceId UUID
	UnknownTags      TaggedFields `json:",omitempty"`
}

func (*GetTelemetrySubscriptionsRequest) Key() APIKey      { return GetTelemetrySubscriptions }
func (*GetTelemetrySubscriptionsRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *GetTelemetrySubscriptionsRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(GetTelemetrySubscriptions, false, version); err != nil {
		return dst, err
	}
	b := dst
	if version == 0 {
		b = AppendUUID(b, m.ClientInstanceId)
	} else {
		w.Absent("ClientInstanceId", m.ClientInstanceId.IsZero(), false)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *GetTelemetrySubscriptionsRequest) ReadFrom(r *Reader) {
	m.ClientInstanceId = UUID{}
	if r.Version() == 0 {
		m.ClientInstanceId = r.UUID("ClientInstanceId")
	}
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *GetTelemetrySubscriptionsRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *GetTelemetrySubscriptionsRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, GetTelemetrySubscriptions, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// GetTelemetrySubscriptionsResponse carries the subscription.
type GetTelemetrySubscriptionsResponse struct {
	ThrottleTimeMs int32
	ErrorCode      ErrorCode
	// ClientInstanceId is v0 only: the request's, or one the broker
	// assigned when the request sent zero.
	ClientInstanceId         UUID
	SubscriptionId           int32
	AcceptedCompressionTypes []int8
	PushIntervalMs           int32
	TelemetryMaxBytes        int32
	DeltaTemporality         bool
	// RequestedMetrics: empty means none, a single "" means all.
	RequestedMetrics []string
	UnknownTags      TaggedFields `json:",omitempty"`
}

func (*GetTelemetrySubscriptionsResponse) Key() APIKey      { return GetTelemetrySubscriptions }
func (*GetTelemetrySubscriptionsResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *GetTelemetrySubscriptionsResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(GetTelemetrySubscriptions, true, version); err != nil {
		return dst, err
	}
	b := dst
	b = AppendInt32(b, m.ThrottleTimeMs)
	b = AppendInt16(b, int16(m.ErrorCode))
	if version == 0 {
		b = AppendUUID(b, m.ClientInstanceId)
	} else {
		w.Absent("ClientInstanceId", m.ClientInstanceId.IsZero(), false)
	}
	b = AppendInt32(b, m.SubscriptionId)
	b = w.Int8Array(b, m.AcceptedCompressionTypes, false)
	b = AppendInt32(b, m.PushIntervalMs)
	b = AppendInt32(b, m.TelemetryMaxBytes)
	b = AppendBool(b, m.DeltaTemporality)
	b = w.StringArray(b, "RequestedMetrics", m.RequestedMetrics, false)
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *GetTelemetrySubscriptionsResponse) ReadFrom(r *Reader) {
	m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.ClientInstanceId = UUID{}
	if r.Version() == 0 {
		m.ClientInstanceId = r.UUID("ClientInstanceId")
	}
	m.SubscriptionId = r.Int32("SubscriptionId")
	m.AcceptedCompressionTypes = r.Int8Array("AcceptedCompressionTypes", m.AcceptedCompressionTypes, false)
	m.PushIntervalMs = r.Int32("PushIntervalMs")
	m.TelemetryMaxBytes = r.Int32("TelemetryMaxBytes")
	m.DeltaTemporality = r.Bool("DeltaTemporality")
	m.RequestedMetrics = r.StringArray("RequestedMetrics", m.RequestedMetrics, false)
	m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *GetTelemetrySubscriptionsResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *GetTelemetrySubscriptionsResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, GetTelemetrySubscriptions, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
