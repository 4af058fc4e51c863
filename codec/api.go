package codec

import "strconv"

// APIKey is a Kafka request type. The constants naming the keys this codec
// implements (LeaveGroup, ApiVersions, ...) are in their APIs' files.
type APIKey int16

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

// API describes one api key as this codec implements it. Each API's file
// defines its description with defineAPI; the table below lists them.
type API struct {
	Key          APIKey
	Name         string // Kafka's name, e.g. "ConsumerGroupHeartbeat"
	MinVersion   int16
	MaxVersion   int16
	FlexibleFrom int16 // first flexible version
	// Routing marks the apis that tell a client where brokers are
	// (Metadata, FindCoordinator). ghostcheck reads and writes them for its
	// recording proxy, which rewrites their hosts and ports, but its
	// coordinator neither serves nor advertises them: APIs leaves them
	// out, AllAPIs has them.
	Routing bool
	// Auth marks the apis that authenticate a connection (SaslHandshake,
	// SaslAuthenticate): wire's dialer speaks them before anything else
	// on a connection to a broker that wants SASL. Like the routing apis,
	// ghostcheck's coordinator neither serves nor advertises them: APIs
	// leaves them out, AllAPIs has them.
	Auth bool
	// Classic marks the classic group protocol's apis (JoinGroup,
	// Heartbeat, SyncGroup, DescribeGroups): ghostcheck reads and writes
	// them (the recording proxy, `check` observing a classic group) and
	// its coordinators serve them (model.AdvertisedVersions), but APIs
	// lists the consumer-protocol apis ghostcheck was first written to
	// check, and leaves them out; AllAPIs has them.
	Classic bool

	// responseHeaderV0 makes every response use header v0, flexible or
	// not: ApiVersions (KIP-511), whose client must read the header before
	// it knows which version the broker answered.
	responseHeaderV0 bool

	requestName, responseName     string
	newRequest, newResponse       func() Message
	decodeRequest, decodeResponse decodeFunc
}

// decodeFunc decodes b[start:] into m without an interface call when m is
// the message type it was made for (see decodeAs); ok is false otherwise.
type decodeFunc func(m Message, b []byte, start int, version int16, opts DecodeOptions) (err error, ok bool)

// body is what defineAPI needs of a message type T: *T is a Message with
// the concrete decode entry every type of this package has.
type body[T any] interface {
	*T
	Message
	decodeAt(b []byte, start int, version int16, opts DecodeOptions) error
}

// defineAPI completes a's description from its request and response types:
// their names, constructors and concrete decoders.
func defineAPI[Req, Resp any, PReq body[Req], PResp body[Resp]](a API) API {
	a.requestName = a.Name + "Request"
	a.responseName = a.Name + "Response"
	a.newRequest = func() Message { return PReq(new(Req)) }
	a.newResponse = func() Message { return PResp(new(Resp)) }
	a.decodeRequest = decodeAs[Req, PReq]
	a.decodeResponse = decodeAs[Resp, PResp]
	return a
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
// named after the key, which defines the key, the messages and the API
// description the row points to.
var apis = [maxKnownKey + 1]*API{
	Metadata:                  &metadataAPI,
	FindCoordinator:           &findCoordinatorAPI,
	JoinGroup:                 &joinGroupAPI,
	Heartbeat:                 &heartbeatAPI,
	LeaveGroup:                &leaveGroupAPI,
	SyncGroup:                 &syncGroupAPI,
	DescribeGroups:            &describeGroupsAPI,
	SaslHandshake:             &saslHandshakeAPI,
	ApiVersions:               &apiVersionsAPI,
	SaslAuthenticate:          &saslAuthenticateAPI,
	ConsumerGroupHeartbeat:    &consumerGroupHeartbeatAPI,
	ConsumerGroupDescribe:     &consumerGroupDescribeAPI,
	GetTelemetrySubscriptions: &getTelemetrySubscriptionsAPI,
	PushTelemetry:             &pushTelemetryAPI,
}

// Lookup returns the description of key, or nil if this codec does not
// implement it.
func Lookup(key APIKey) *API {
	if key < 0 || int(key) > maxKnownKey {
		return nil
	}
	return apis[key]
}

// APIs lists the apis ghostcheck checks, in key order: those a coordinator
// serves and advertises. The routing, authentication and classic apis are
// left out (see API.Routing, API.Auth, API.Classic).
func APIs() []*API {
	var out []*API
	for _, a := range apis {
		if a != nil && !a.Routing && !a.Auth && !a.Classic {
			out = append(out, a)
		}
	}
	return out
}

// AllAPIs lists every api this codec implements, in key order: APIs, the
// routing, authentication and classic apis. Lookup finds each of them.
func AllAPIs() []*API {
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
	if a.responseHeaderV0 || !a.Flexible(version) {
		return 0, nil
	}
	return 1, nil
}

// begin starts encoding a message of key at version: it checks the version
// and sets up w for the message.
func (w *Writer) begin(key APIKey, response bool, version int16) error {
	a := apis[key]
	name := a.MessageName(response)
	if !a.Supports(version) {
		return encodeError(ErrUnsupportedVersion, name, "", version, a.Name+" supports v"+strconv.Itoa(int(a.MinVersion))+"-v"+strconv.Itoa(int(a.MaxVersion)))
	}
	w.reset(name, version, a.Flexible(version))
	return nil
}

// finish returns a message encoder's result: the bytes appended and the
// writer's error.
func finish(b []byte, w *Writer) ([]byte, error) {
	if w.err != nil {
		return b, w.err
	}
	return b, nil
}
