package codec

import (
	"encoding/json"
	"fmt"
)

// SaslAuthenticate (api key 36), versions 0-2, flexible from v2. It carries
// the SASL tokens of the mechanism a SaslHandshake v1 named, one round trip
// per token (PLAIN: one; SCRAM: two). An authentication api (API.Auth):
// ghostcheck's coordinator neither serves nor advertises it.
//
//	v0     AuthBytes → ErrorCode, ErrorMessage, AuthBytes
//	v1     same      → + SessionLifetimeMs (KIP-368: when the broker will
//	                   close the connection unless it re-authenticates; 0
//	                   when it will not)
//	v2     flexible
//
// A broker that refuses the credentials answers SASL_AUTHENTICATION_FAILED
// with a message and then closes the connection.

// SaslAuthenticate is api key 36.
const SaslAuthenticate APIKey = 36

// saslAuthenticateAPI is SaslAuthenticate's row of the api table.
var saslAuthenticateAPI = defineAPI[SaslAuthenticateRequest, SaslAuthenticateResponse](API{Key: SaslAuthenticate, Name: "SaslAuthenticate", MinVersion: 0, MaxVersion: 2, FlexibleFrom: 2, Auth: true})

// SaslAuthenticateRequest carries one client token of the mechanism.
type SaslAuthenticateRequest struct {
	// AuthBytes may hold a password (PLAIN's token does): its JSON form
	// leaves it out (MarshalJSON).
	AuthBytes   []byte
	UnknownTags TaggedFields `json:",omitempty"`
}

// redactedToken is what the JSON form of a SaslAuthenticateRequest shows
// in place of its token.
const redactedToken = "[redacted]"

// saslAuthenticateRequestJSON is the JSON form of a
// SaslAuthenticateRequest.
type saslAuthenticateRequestJSON struct {
	AuthBytes   json.RawMessage
	UnknownTags TaggedFields `json:",omitempty"`
}

// MarshalJSON writes the request with its token replaced by
// "[redacted]": the JSON form is what histories, proxy recordings and
// `ghostcheck decode` write, and a PLAIN token holds the password.
func (m *SaslAuthenticateRequest) MarshalJSON() ([]byte, error) {
	tok, _ := json.Marshal(redactedToken)
	return json.Marshal(saslAuthenticateRequestJSON{AuthBytes: tok, UnknownTags: m.UnknownTags})
}

// UnmarshalJSON reads what MarshalJSON wrote (the token then reads as
// empty: it was never written) or a token in encoding/json's base64 form.
func (m *SaslAuthenticateRequest) UnmarshalJSON(b []byte) error {
	var j saslAuthenticateRequestJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	m.AuthBytes, m.UnknownTags = nil, j.UnknownTags
	var s string
	if len(j.AuthBytes) == 0 || string(j.AuthBytes) == "null" || (json.Unmarshal(j.AuthBytes, &s) == nil && s == redactedToken) {
		return nil
	}
	var tok []byte
	if err := json.Unmarshal(j.AuthBytes, &tok); err != nil {
		return fmt.Errorf("SaslAuthenticateRequest.AuthBytes: %w", err)
	}
	if len(tok) > 0 {
		m.AuthBytes = tok
	}
	return nil
}

func (*SaslAuthenticateRequest) Key() APIKey      { return SaslAuthenticate }
func (*SaslAuthenticateRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *SaslAuthenticateRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(SaslAuthenticate, false, version); err != nil {
		return dst, err
	}
	b := w.Bytes(dst, m.AuthBytes)
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *SaslAuthenticateRequest) ReadFrom(r *Reader) {
	m.AuthBytes = r.Bytes("AuthBytes")
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field;
// it is DecodeBody without the allocation.
func (m *SaslAuthenticateRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *SaslAuthenticateRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, SaslAuthenticate, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// SaslAuthenticateResponse carries the broker's token, or why it refused.
type SaslAuthenticateResponse struct {
	ErrorCode    ErrorCode
	ErrorMessage NullableString
	AuthBytes    []byte
	// SessionLifetimeMs is v1+ (ignorable, default 0: the session does
	// not expire).
	SessionLifetimeMs int64
	UnknownTags       TaggedFields `json:",omitempty"`
}

func (*SaslAuthenticateResponse) Key() APIKey      { return SaslAuthenticate }
func (*SaslAuthenticateResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *SaslAuthenticateResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(SaslAuthenticate, true, version); err != nil {
		return dst, err
	}
	b := AppendInt16(dst, int16(m.ErrorCode))
	b = w.NullableString(b, "ErrorMessage", m.ErrorMessage)
	b = w.Bytes(b, m.AuthBytes)
	if version >= 1 {
		b = AppendInt64(b, m.SessionLifetimeMs)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *SaslAuthenticateResponse) ReadFrom(r *Reader) {
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	m.ErrorMessage = r.NullableString("ErrorMessage", m.ErrorMessage)
	m.AuthBytes = r.Bytes("AuthBytes")
	m.SessionLifetimeMs = 0
	if r.Version() >= 1 {
		m.SessionLifetimeMs = r.Int64("SessionLifetimeMs")
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field;
// it is DecodeBody without the allocation.
func (m *SaslAuthenticateResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *SaslAuthenticateResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, SaslAuthenticate, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
