package codec

import (
	"errors"
	"strconv"
)

// Sentinel errors. An *Error wraps exactly one of them, so callers can test
// the kind of failure with errors.Is and still print where it happened.
var (
	// ErrTruncated: the input ended inside a field.
	ErrTruncated = errors.New("truncated")
	// ErrNegativeLength: a non-nullable string, bytes or array field carried
	// a null (negative) length.
	ErrNegativeLength = errors.New("negative length for a non-nullable field")
	// ErrLengthOverrun: a length or count claims more data than the input
	// has left. It is reported before anything is allocated.
	ErrLengthOverrun = errors.New("length exceeds remaining input")
	// ErrStringTooLong: a string is longer than 0x7fff bytes, the limit of
	// Kafka's int16-prefixed strings, which Kafka also applies to compact
	// strings on read.
	ErrStringTooLong = errors.New("string longer than 32767 bytes")
	// ErrVarintTooLong: an unsigned varint did not end within 5 bytes (or a
	// varlong within 10).
	ErrVarintTooLong = errors.New("varint too long")
	// ErrTagSize: a known tagged field's declared size does not match the
	// size of its value.
	ErrTagSize = errors.New("tagged field size does not match its type")
	// ErrTagOrder: tags are not strictly ascending. Kafka writers must emit
	// them so (KIP-482); readers accept any order, so a Reader reports this
	// only in strict mode, and the encoder always refuses to write it.
	ErrTagOrder = errors.New("tagged fields not in strictly ascending order")
	// ErrTrailingBytes: bytes remain after a complete message. Brokers
	// ignore them; a strict Reader reports them.
	ErrTrailingBytes = errors.New("trailing bytes after message")
	// ErrFrameTooLarge: a frame's size prefix is above the configured
	// maximum, or negative.
	ErrFrameTooLarge = errors.New("frame size out of range")
	// ErrUnknownAPIKey: the api key is not one this codec knows.
	ErrUnknownAPIKey = errors.New("unknown api key")
	// ErrUnsupportedVersion: the api version is outside what this codec
	// implements for the key.
	ErrUnsupportedVersion = errors.New("unsupported api version")
	// ErrHeaderVersion: a request header version other than 1 or 2, or a
	// response header version other than 0 or 1. Request header v0 was
	// removed in Kafka 4.0.
	ErrHeaderVersion = errors.New("unsupported header version")
	// ErrNotRepresentable: the value cannot be written at the requested
	// version (a field the version lacks holds a non-default value, a
	// LeaveGroup v0-v2 with other than one member, tags at a non-flexible
	// version). Kafka's generated writers refuse the same things.
	ErrNotRepresentable = errors.New("value not representable at this version")
)

// Error is a decoding or encoding failure with its location. Decoders return
// it for every malformed input; nothing in this package panics on input.
type Error struct {
	Kind    error  // one of the sentinel errors above
	Message string // e.g. "ConsumerGroupHeartbeatRequest", "RequestHeader"
	Field   string // e.g. "MemberId", "TopicPartitions.Partitions"
	Version int16  // the message (or header) version being read or written
	Offset  int    // byte offset in the input where the field starts; -1 when encoding
	Detail  string // optional numbers, e.g. "need 16 bytes, have 3"
}

func (e *Error) Error() string {
	b := make([]byte, 0, 96)
	b = append(b, "codec: "...)
	if e.Message != "" {
		b = append(b, e.Message...)
		b = append(b, " v"...)
		b = strconv.AppendInt(b, int64(e.Version), 10)
		b = append(b, ": "...)
	}
	if e.Field != "" {
		b = append(b, "field "...)
		b = append(b, e.Field...)
		b = append(b, ' ')
	}
	if e.Offset >= 0 {
		b = append(b, "at byte "...)
		b = strconv.AppendInt(b, int64(e.Offset), 10)
		b = append(b, ": "...)
	} else if e.Field != "" {
		b = append(b, ": "...)
	}
	b = append(b, e.Kind.Error()...)
	if e.Detail != "" {
		b = append(b, " ("...)
		b = append(b, e.Detail...)
		b = append(b, ')')
	}
	return string(b)
}

// Unwrap returns the sentinel kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

func encodeError(kind error, message, field string, version int16, detail string) *Error {
	return &Error{Kind: kind, Message: message, Field: field, Version: version, Offset: -1, Detail: detail}
}
