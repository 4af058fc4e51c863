package codec

import "strconv"

// APIKey is a Kafka request type.
type APIKey int16

// The api keys this codec implements.
const (
	LeaveGroup                APIKey = 13
	ApiVersions               APIKey = 18
	ConsumerGroupHeartbeat    APIKey = 68
	ConsumerGroupDescribe     APIKey = 69
	GetTelemetrySubscriptions APIKey = 71
	PushTelemetry             APIKey = 72
)

// Message is a request or response body. Implementations are the *XxxRequest
// and *XxxResponse types of this package.
type Message interface {
	// Key is the api key of the message.
	Key() APIKey
	// IsResponse tells requests and responses of one key apart.
	IsResponse() bool
	// AppendTo appends the body encoded at version to dst. It fails with
	// ErrUnsupportedVersion, ErrNotRepresentable, ErrStringTooLong or
	// ErrTagOrder (as an *Error), and appends nothing useful then.
	AppendTo(dst []byte, version int16) ([]byte, error)
	// ReadFrom decodes the body from r, whose version and flexibility are
	// already set, overwriting every field. Slices in the receiver are
	// reused. Errors are left in r.
	ReadFrom(r *Reader)
}

// API describes one api key as this codec implements it.
type API struct {
	Key          APIKey
	Name         string // Kafka's name, e.g. "ConsumerGroupHeartbeat"
	MinVersion   int16
	MaxVersion   int16
	FlexibleFrom int16 // first flexible version

	requestName, responseName string
	newRequest, newResponse   func() Message
}

// Flexible reports whether version uses compact encodings and tagged fields.
func (a *API) Flexible(version int16) bool { return version >= a.FlexibleFrom }

// Supports reports whether version is implemented.
func (a *API) Supports(version int16) bool { return version >= a.MinVersion && version <= a.MaxVersion }

// MessageName is the request or response type name, e.g.
// "LeaveGroupRequest".
func (a *API) MessageName(response bool) string {
	if response {
		return a.responseName
	}
	return a.requestName
}

// NewMessage returns a new zero request or response body for this key.
func (a *API) NewMessage(response bool) Message {
	if response {
		return a.newResponse()
	}
	return a.newRequest()
}

const maxKnownKey = 127

// apis is indexed by api key. Adding an API is one row here and one file
// named after the key.
var apis = func() (t [maxKnownKey + 1]*API) {
	add := func(a API, req, resp func() Message) {
		a.requestName = a.Name + "Request"
		a.responseName = a.Name + "Response"
		a.newRequest, a.newResponse = req, resp
		t[a.Key] = &a
	}
	add(API{Key: LeaveGroup, Name: "LeaveGroup", MinVersion: 0, MaxVersion: 5, FlexibleFrom: 4},
		func() Message { return new(LeaveGroupRequest) }, func() Message { return new(LeaveGroupResponse) })
	add(API{Key: ApiVersions, Name: "ApiVersions", MinVersion: 0, MaxVersion: 4, FlexibleFrom: 3},
		func() Message { return new(ApiVersionsRequest) }, func() Message { return new(ApiVersionsResponse) })
	add(API{Key: ConsumerGroupHeartbeat, Name: "ConsumerGroupHeartbeat", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0},
		func() Message { return new(ConsumerGroupHeartbeatRequest) }, func() Message { return new(ConsumerGroupHeartbeatResponse) })
	add(API{Key: ConsumerGroupDescribe, Name: "ConsumerGroupDescribe", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0},
		func() Message { return new(ConsumerGroupDescribeRequest) }, func() Message { return new(ConsumerGroupDescribeResponse) })
	add(API{Key: GetTelemetrySubscriptions, Name: "GetTelemetrySubscriptions", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0},
		func() Message { return new(GetTelemetrySubscriptionsRequest) }, func() Message { return new(GetTelemetrySubscriptionsResponse) })
	add(API{Key: PushTelemetry, Name: "PushTelemetry", MinVersion: 0, MaxVersion: 1, FlexibleFrom: 0},
		func() Message { return new(PushTelemetryRequest) }, func() Message { return new(PushTelemetryResponse) })
	return t
}()

// Lookup returns the description of key, or nil if this codec does not
// implement it.
func Lookup(key APIKey) *API {
	if key < 0 || int(key) > maxKnownKey {
		return nil
	}
	return apis[key]
}

// APIs lists every implemented api in key order.
func APIs() []*API {
	var out []*API
	for _, a := range apis {
		if a != nil {
			out = append(out, a)
		}
	}
	return out
}

// String returns Kafka's name of the key, or "ApiKey(n)".
func (k APIKey) String() string {
	if a := Lookup(k); a != nil {
		return a.Name
	}
	return "ApiKey(" + strconv.Itoa(int(k)) + ")"
}

// RequestHeaderVersion is the request header version that requests of key at
// version use: 2 for flexible versions, 1 otherwise (Kafka generates the same
// rule from each message's flexibleVersions). It depends only on the
// flexibility boundary, so a too-new ApiVersions request still has a
// parseable header, as KIP-511 needs.
func RequestHeaderVersion(key APIKey, version int16) (int16, error) {
	a := Lookup(key)
	if a == nil {
		return 0, &Error{Kind: ErrUnknownAPIKey, Message: "RequestHeader", Field: "RequestApiKey", Offset: 0, Detail: "api key " + strconv.Itoa(int(key))}
	}
	if version < 0 {
		return 0, &Error{Kind: ErrUnsupportedVersion, Message: "RequestHeader", Field: "RequestApiVersion", Offset: 2, Detail: a.Name + " v" + strconv.Itoa(int(version))}
	}
	if a.Flexible(version) {
		return 2, nil
	}
	return 1, nil
}

// ResponseHeaderVersion is the response header version for responses of key
// at version: 1 for flexible versions, 0 otherwise, and always 0 for
// ApiVersions (KIP-511: a client must read the header before it knows which
// version the broker answered).
func ResponseHeaderVersion(key APIKey, version int16) (int16, error) {
	a := Lookup(key)
	if a == nil {
		return 0, &Error{Kind: ErrUnknownAPIKey, Message: "ResponseHeader", Offset: -1, Detail: "api key " + strconv.Itoa(int(key))}
	}
	if key == ApiVersions || !a.Flexible(version) {
		return 0, nil
	}
	return 1, nil
}

// begin starts encoding m at version: it checks the version and returns a
// Writer over dst.
func begin(dst []byte, key APIKey, response bool, version int16) (Writer, error) {
	a := apis[key]
	name := a.MessageName(response)
	if !a.Supports(version) {
		return Writer{}, encodeError(ErrUnsupportedVersion, name, "", version, a.Name+" supports v"+strconv.Itoa(int(a.MinVersion))+"-v"+strconv.Itoa(int(a.MaxVersion)))
	}
	return NewWriter(dst, name, version, a.Flexible(version)), nil
}

// finish returns the writer's result.
func finish(w *Writer) ([]byte, error) {
	if w.err != nil {
		return w.B, w.err
	}
	return w.B, nil
}

// DecodeBody decodes b as the body of m at version. Error offsets count from
// the start of b.
func DecodeBody(m Message, b []byte, version int16, opts DecodeOptions) error {
	return decodeBodyAt(m, b, 0, version, opts)
}

// decodeBodyAt decodes b[start:] so that error offsets count from b[0].
func decodeBodyAt(m Message, b []byte, start int, version int16, opts DecodeOptions) error {
	if err, ok := decodeKnown(m, b, start, version, opts); ok {
		return err
	}
	a := Lookup(m.Key())
	name := a.MessageName(m.IsResponse())
	if !a.Supports(version) {
		return &Error{Kind: ErrUnsupportedVersion, Message: name, Version: version, Offset: start,
			Detail: a.Name + " supports v" + strconv.Itoa(int(a.MinVersion)) + "-v" + strconv.Itoa(int(a.MaxVersion))}
	}
	r := NewReader(b, name, version, a.Flexible(version), opts)
	r.off = start
	m.ReadFrom(&r)
	return r.Finish()
}
