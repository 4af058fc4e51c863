package codec

import (
	"encoding/binary"
	"strconv"
)

// NullableUUID is a uuid that may be absent. The request header's
// ClientInstanceId (KIP-1313, tag 0) is absent when the tag is not sent,
// which a checker must tell apart from a sent zero UUID.
type NullableUUID struct {
	UUID  UUID
	Valid bool
}

// SomeUUID returns a present NullableUUID.
func SomeUUID(u UUID) NullableUUID { return NullableUUID{UUID: u, Valid: true} }

// MarshalJSON writes null or the uuid in Kafka's form.
func (n NullableUUID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return []byte(`"` + n.UUID.String() + `"`), nil
}

// RequestHeader is Kafka's RequestHeader, versions 1 and 2. Version 0 (no
// ClientId) was removed in Kafka 4.0 and is rejected.
//
// ClientId is always the classic int16-prefixed nullable string, even in the
// flexible v2, so that any broker can read the header of any ApiVersions
// request. v2 ends with a tagged-field section in which tag 0 is the
// ClientInstanceId of KIP-1313 (a uuid, 16 bytes).
type RequestHeader struct {
	RequestApiKey     APIKey
	RequestApiVersion int16
	CorrelationId     int32
	ClientId          NullableString
	// ClientInstanceId is tag 0 of header v2 (KIP-1313); ignorable, so
	// header v1 (which has no tags) drops it.
	ClientInstanceId NullableUUID `json:",omitempty"`
	// UnknownTags are other tags of header v2, kept for exact re-encoding.
	UnknownTags TaggedFields `json:",omitempty"`
}

// ClientInstanceIDTag is the tag of ClientInstanceId in request header v2.
const ClientInstanceIDTag = 0

const requestHeaderName = "RequestHeader"

// HeaderVersion is the header version h's api key and version call for.
func (h *RequestHeader) HeaderVersion() (int16, error) {
	return RequestHeaderVersion(h.RequestApiKey, h.RequestApiVersion)
}

// AppendTo appends the header at the given header version (1 or 2).
func (h *RequestHeader) AppendTo(dst []byte, headerVersion int16) ([]byte, error) {
	if (headerVersion == 1 || headerVersion == 2) && len(h.UnknownTags) == 0 && len(h.ClientId.Value) <= 0x7fff {
		// What every client sends, in one pass: key, version and
		// correlation id in one 8-byte store, ClientId, and at v2 a tag
		// section that is empty or holds only the ClientInstanceId. For
		// a header this small, the Writer's bookkeeping was a third of
		// a heartbeat's encoding.
		b := binary.BigEndian.AppendUint64(dst, uint64(uint16(h.RequestApiKey))<<48|uint64(uint16(h.RequestApiVersion))<<32|uint64(uint32(h.CorrelationId)))
		if h.ClientId.Valid {
			b = append(AppendInt16(b, int16(len(h.ClientId.Value))), h.ClientId.Value...)
		} else {
			b = AppendInt16(b, -1)
		}
		if headerVersion == 1 {
			return b, nil // ClientInstanceId is ignorable: dropped, as below
		}
		if !h.ClientInstanceId.Valid {
			return append(b, 0), nil
		}
		b = append(b, 1, ClientInstanceIDTag, 16)
		return AppendUUID(b, h.ClientInstanceId.UUID), nil
	}
	return h.appendSlow(dst, headerVersion)
}

// appendSlow is AppendTo for the rest: unknown tags (checked against the
// known one), a ClientId too long to write, a header version that does
// not exist.
func (h *RequestHeader) appendSlow(dst []byte, headerVersion int16) ([]byte, error) {
	if headerVersion != 1 && headerVersion != 2 {
		return dst, encodeError(ErrHeaderVersion, requestHeaderName, "", headerVersion, "request header versions are 1 and 2")
	}
	var w Writer
	w.reset(requestHeaderName, headerVersion, headerVersion >= 2)
	b := AppendInt16(dst, int16(h.RequestApiKey))
	b = AppendInt16(b, h.RequestApiVersion)
	b = AppendInt32(b, h.CorrelationId)
	b = w.ClassicNullableString(b, "ClientId", h.ClientId)
	if headerVersion < 2 {
		// ClientInstanceId is an ignorable tagged field (docs/PROTOCOL.md A2):
		// a header without a tag section simply does not carry it.
		w.Absent("ClientInstanceId", !h.ClientInstanceId.Valid, true)
		w.Absent("UnknownTags", len(h.UnknownTags) == 0, false)
		return finish(b, &w)
	}
	n := len(h.UnknownTags)
	if h.ClientInstanceId.Valid {
		n++
	}
	// An unknown tag numbered like a known one is refused even when the
	// known field is absent: a reader would take it for the known field.
	if !w.CheckTags("UnknownTags", h.UnknownTags, 1<<ClientInstanceIDTag) {
		return finish(b, &w)
	}
	b = AppendUvarint(b, uint32(n))
	if h.ClientInstanceId.Valid {
		b = AppendTagHeader(b, ClientInstanceIDTag, 16)
		b = AppendUUID(b, h.ClientInstanceId.UUID)
	}
	return finish(appendTags(b, h.UnknownTags), &w)
}

// ReadFrom decodes a header of the given version from r. The Reader's own
// version is used for error messages; pass headerVersion explicitly.
func (h *RequestHeader) ReadFrom(r *Reader, headerVersion int16) {
	if headerVersion != 1 && headerVersion != 2 {
		r.Fail(ErrHeaderVersion, "", r.off, "request header v"+strconv.Itoa(int(headerVersion))+"; versions are 1 and 2 (v0 was removed in Kafka 4.0)")
		return
	}
	h.RequestApiKey = APIKey(r.Int16("RequestApiKey"))
	h.RequestApiVersion = r.Int16("RequestApiVersion")
	h.CorrelationId = r.Int32("CorrelationId")
	h.readAfterCorrelation(r, headerVersion)
}

// readAfterCorrelation reads the header from ClientId on.
func (h *RequestHeader) readAfterCorrelation(r *Reader, headerVersion int16) {
	h.ClientId = r.ClassicNullableString("ClientId", h.ClientId)
	h.ClientInstanceId = NullableUUID{}
	h.UnknownTags = h.UnknownTags[:0]
	if headerVersion >= 2 {
		b := r.buf[r.off:]
		if len(b) > 0 && b[0] == 0 {
			r.off++
		} else if len(b) >= 19 && b[0] == 1 && b[1] == ClientInstanceIDTag && b[2] == 16 {
			// The section a KIP-1313 client always sends: exactly one
			// tag, 0, of 16 bytes.
			h.ClientInstanceId = SomeUUID(UUID(b[3:19]))
			r.off += 19
		} else {
			ts := r.BeginTags("TaggedFields")
			for ts.Next(r) {
				if ts.Tag == ClientInstanceIDTag {
					// Repeated: the last one wins, as in Kafka's reader.
					h.ClientInstanceId = SomeUUID(r.UUID("ClientInstanceId"))
					ts.EndKnown(r, "ClientInstanceId")
					continue
				}
				h.UnknownTags = ts.Keep(r, h.UnknownTags)
			}
		}
	}
	if len(h.UnknownTags) == 0 {
		h.UnknownTags = nil
	}
}

// ParseRequestHeader decodes the request header at the start of frame (a
// frame without its size prefix), choosing the header version from the api
// key and version it carries. It returns the offset at which the body
// starts. An unknown api key is ErrUnknownAPIKey; h still holds the key,
// version and correlation id when the input had them, so a server can log
// what it refused.
func ParseRequestHeader(frame []byte, h *RequestHeader, opts DecodeOptions) (int, error) {
	if len(frame) >= 8 {
		h.RequestApiKey = APIKey(int16(uint16(frame[0])<<8 | uint16(frame[1])))
		h.RequestApiVersion = int16(uint16(frame[2])<<8 | uint16(frame[3]))
		h.CorrelationId = int32(uint32(frame[4])<<24 | uint32(frame[5])<<16 | uint32(frame[6])<<8 | uint32(frame[7]))
	} else {
		r := NewReader(frame, requestHeaderName, 0, false, opts)
		r.Int16("RequestApiKey")
		r.Int16("RequestApiVersion")
		r.Int32("CorrelationId")
		return 0, r.Err()
	}
	hv, err := RequestHeaderVersion(h.RequestApiKey, h.RequestApiVersion)
	if err != nil {
		return 0, err
	}
	// The header's one string, ClientId, is copied on its own: a OneCopy
	// copy would reach to the end of the frame and keep the body alive.
	opts.OneCopy = false
	r := NewReader(frame, requestHeaderName, hv, hv >= 2, opts)
	r.off = 8 // the key, version and correlation id read above
	h.readAfterCorrelation(&r, hv)
	return r.off, r.Err()
}

// ResponseHeader is Kafka's ResponseHeader: v0 is the correlation id, v1
// adds a tagged-field section (no tags are defined).
type ResponseHeader struct {
	CorrelationId int32
	UnknownTags   TaggedFields `json:",omitempty"`
}

const responseHeaderName = "ResponseHeader"

// AppendTo appends the header at the given header version (0 or 1).
func (h *ResponseHeader) AppendTo(dst []byte, headerVersion int16) ([]byte, error) {
	if headerVersion != 0 && headerVersion != 1 {
		return dst, encodeError(ErrHeaderVersion, responseHeaderName, "", headerVersion, "response header versions are 0 and 1")
	}
	var w Writer
	w.reset(responseHeaderName, headerVersion, headerVersion >= 1)
	b := AppendInt32(dst, h.CorrelationId)
	b = w.UnknownTags(b, "TaggedFields", h.UnknownTags)
	return finish(b, &w)
}

// ReadFrom decodes a response header of the given version.
func (h *ResponseHeader) ReadFrom(r *Reader, headerVersion int16) {
	if headerVersion != 0 && headerVersion != 1 {
		r.Fail(ErrHeaderVersion, "", r.off, "response header v"+strconv.Itoa(int(headerVersion)))
		return
	}
	h.CorrelationId = r.Int32("CorrelationId")
	h.UnknownTags = nil
	if headerVersion >= 1 {
		h.UnknownTags = r.UnknownTags("TaggedFields", h.UnknownTags)
	}
}
