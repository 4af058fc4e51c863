package codec

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
)

// UUID is Kafka's uuid type: 16 bytes on the wire, the most significant
// int64 first. The zero UUID means "none" in Kafka (Uuid.ZERO_UUID).
type UUID [16]byte

// IsZero reports whether u is the zero UUID.
func (u UUID) IsZero() bool { return u == UUID{} }

// String formats u the way Kafka prints a Uuid: 22 characters of unpadded
// base64url, e.g. topic ids in kafka-topics output.
func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// Hex formats u in the RFC 4122 form (8-4-4-4-12 hex digits).
func (u UUID) Hex() string { return string(u.AppendHex(nil)) }

// AppendHex appends the RFC 4122 form of u to dst, without allocating when
// dst has room.
func (u *UUID) AppendHex(dst []byte) []byte {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return append(dst, b[:]...)
}

// MostSignificant and LeastSignificant return the two int64 halves, as
// Kafka's Java Uuid holds them.
func (u UUID) MostSignificant() int64  { return int64(binary.BigEndian.Uint64(u[:8])) }
func (u UUID) LeastSignificant() int64 { return int64(binary.BigEndian.Uint64(u[8:])) }

// ParseUUID accepts Kafka's 22-character base64url form or the 36-character
// RFC 4122 form.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	switch len(s) {
	case 22:
		n, err := base64.RawURLEncoding.Decode(u[:], []byte(s))
		if err != nil || n != 16 {
			return UUID{}, errors.New("codec: bad base64url uuid " + s)
		}
		return u, nil
	case 36:
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return UUID{}, errors.New("codec: bad uuid " + s)
		}
		h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
		if _, err := hex.Decode(u[:], []byte(h)); err != nil {
			return UUID{}, errors.New("codec: bad uuid " + s)
		}
		return u, nil
	}
	return UUID{}, errors.New("codec: bad uuid length: " + s)
}

// MarshalText writes Kafka's base64url form, so JSON output matches what
// Kafka's tools print.
func (u UUID) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText accepts both forms ParseUUID accepts.
func (u *UUID) UnmarshalText(b []byte) error {
	v, err := ParseUUID(string(b))
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// NullableString is a Kafka nullable string. The zero value is null, which is
// the default of every nullable string field in the messages here.
type NullableString struct {
	Value string
	Valid bool // false means null
}

// Str returns a non-null NullableString holding s.
func Str(s string) NullableString { return NullableString{Value: s, Valid: true} }

// Null is the null NullableString.
var Null = NullableString{}

// Ptr returns nil for null and a pointer to a copy of the value otherwise;
// convenient for comparing with codecs that use *string.
func (n NullableString) Ptr() *string {
	if !n.Valid {
		return nil
	}
	s := n.Value
	return &s
}

// FromPtr converts a *string (nil = null).
func FromPtr(p *string) NullableString {
	if p == nil {
		return Null
	}
	return Str(*p)
}

// String returns the value, or "<null>" for null; for printing only.
func (n NullableString) String() string {
	if !n.Valid {
		return "<null>"
	}
	return n.Value
}

// MarshalJSON writes null or the string.
func (n NullableString) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON reads null or a string.
func (n *NullableString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Null
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*n = Str(s)
	return nil
}

// TaggedField is one entry of a tagged-field section whose tag this codec
// does not interpret. It is kept so that re-encoding reproduces it.
type TaggedField struct {
	Tag  uint32
	Data []byte
}

// TaggedFields holds the unknown tagged fields of one structure, in the
// order they were read. Encoding requires strictly ascending tags.
type TaggedFields []TaggedField

// Get returns the data of tag t and whether it is present.
func (ts TaggedFields) Get(t uint32) ([]byte, bool) {
	for _, f := range ts {
		if f.Tag == t {
			return f.Data, true
		}
	}
	return nil, false
}
