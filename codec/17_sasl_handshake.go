package codec

// SaslHandshake (api key 17), versions 0-1, never flexible. Like
// SaslAuthenticate it is an authentication api (API.Auth): a client sends
// it on a new connection, before anything but ApiVersions, to name the SASL
// mechanism it will use; ghostcheck's coordinator neither serves nor
// advertises it.
//
//	v0     Mechanism → ErrorCode, Mechanisms (the broker's enabled ones);
//	       the SASL tokens then follow as bare size-prefixed frames, with
//	       no request header
//	v1     same body; the tokens then go in SaslAuthenticate requests
//	       (KIP-152)
//
// Kafka keeps the version at 1 on purpose: clients up to 2.4 negotiated it
// wrongly (KAFKA-9577), so a v2 would break them.

// SaslHandshake is api key 17.
const SaslHandshake APIKey = 17

// neverFlexible is the FlexibleFrom of an api with no flexible version
// (flexibleVersions "none" in Kafka's schema).
const neverFlexible int16 = 0x7fff

// saslHandshakeAPI is SaslHandshake's row of the api table.
var saslHandshakeAPI = defineAPI[SaslHandshakeRequest, SaslHandshakeResponse](API{Key: SaslHandshake, Name: "SaslHandshake", MinVersion: 0, MaxVersion: 1, FlexibleFrom: neverFlexible, Auth: true})

// SASL mechanism names as a SaslHandshakeRequest names them.
const (
	MechanismPlain       = "PLAIN"
	MechanismScramSHA256 = "SCRAM-SHA-256"
	MechanismScramSHA512 = "SCRAM-SHA-512"
)

// SaslHandshakeRequest names the SASL mechanism the client will use.
type SaslHandshakeRequest struct {
	Mechanism string
}

func (*SaslHandshakeRequest) Key() APIKey      { return SaslHandshake }
func (*SaslHandshakeRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *SaslHandshakeRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(SaslHandshake, false, version); err != nil {
		return dst, err
	}
	b := w.String(dst, "Mechanism", m.Mechanism)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *SaslHandshakeRequest) ReadFrom(r *Reader) {
	m.Mechanism = r.String("Mechanism", m.Mechanism)
}

// Decode decodes b as the body of m at version, overwriting every field;
// it is DecodeBody without the allocation.
func (m *SaslHandshakeRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *SaslHandshakeRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, SaslHandshake, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// SaslHandshakeResponse accepts the mechanism (ErrorCode NONE) or refuses
// it (UNSUPPORTED_SASL_MECHANISM, or ILLEGAL_SASL_STATE on a connection
// that is already past its handshake), listing the mechanisms the broker
// has enabled either way.
type SaslHandshakeResponse struct {
	ErrorCode  ErrorCode
	Mechanisms []string
}

func (*SaslHandshakeResponse) Key() APIKey      { return SaslHandshake }
func (*SaslHandshakeResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *SaslHandshakeResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(SaslHandshake, true, version); err != nil {
		return dst, err
	}
	b := AppendInt16(dst, int16(m.ErrorCode))
	b = w.StringArray(b, "Mechanisms", m.Mechanisms, false)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *SaslHandshakeResponse) ReadFrom(r *Reader) {
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.Mechanisms = r.StringArray("Mechanisms", m.Mechanisms, false)
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *SaslHandshakeResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *SaslHandshakeResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, SaslHandshake, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
