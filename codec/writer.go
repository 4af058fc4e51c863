package codec

import (
	"encoding/binary"
	"strconv"
)

// Append-style encoders for the primitives. Each appends the encoding of v to
// b and returns the extended slice, like encoding/binary's Append functions.

func AppendInt8(b []byte, v int8) []byte   { return append(b, byte(v)) }
func AppendInt16(b []byte, v int16) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func AppendInt32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func AppendInt64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }
func AppendUint16(b []byte, v uint16) []byte {
	return binary.BigEndian.AppendUint16(b, v)
}
func AppendUint32(b []byte, v uint32) []byte {
	return binary.BigEndian.AppendUint32(b, v)
}
func AppendUUID(b []byte, u UUID) []byte { return append(b, u[:]...) }

// AppendBool writes 1 for true and 0 for false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// AppendUvarint writes v in the minimal unsigned varint form.
func AppendUvarint(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendVarint writes v zig-zag encoded.
func AppendVarint(b []byte, v int32) []byte {
	return AppendUvarint(b, uint32(v<<1)^uint32(v>>31))
}

// AppendUvarlong writes a 64-bit unsigned varint.
func AppendUvarlong(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendVarlong writes v zig-zag encoded as a varlong.
func AppendVarlong(b []byte, v int64) []byte {
	return AppendUvarlong(b, uint64(v<<1)^uint64(v>>63))
}

// UvarintLen is the encoded size of v.
func UvarintLen(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Writer appends one message at one version. Like Reader it picks the
// compact or classic form of strings, bytes and arrays from the version's
// flexibility, and it keeps the first error (a string too long, a value the
// version cannot carry) so message encoders check once at the end.
type Writer struct {
	B        []byte
	err      *Error
	message  string
	version  int16
	flexible bool
}

// NewWriter returns a Writer appending to b.
func NewWriter(b []byte, message string, version int16, flexible bool) Writer {
	return Writer{B: b, message: message, version: version, flexible: flexible}
}

// Err returns the first error, or nil.
func (w *Writer) Err() error {
	if w.err == nil {
		return nil
	}
	return w.err
}

// Flexible reports whether the version being written is flexible.
func (w *Writer) Flexible() bool { return w.flexible }

// Version is the version being written.
func (w *Writer) Version() int16 { return w.version }

// Fail records an error (the first one wins).
func (w *Writer) Fail(kind error, field, detail string) {
	if w.err == nil {
		w.err = encodeError(kind, w.message, field, w.version, detail)
	}
}

// Absent checks a field the version does not carry: a non-default value is
// ErrNotRepresentable unless the field is ignorable, in which case it is
// silently dropped, as Kafka's generated writers do.
func (w *Writer) Absent(field string, isDefault, ignorable bool) {
	if !isDefault && !ignorable {
		w.Fail(ErrNotRepresentable, field, "field not in this version")
	}
}

func (w *Writer) Int8(v int8)   { w.B = append(w.B, byte(v)) }
func (w *Writer) Bool(v bool)   { w.B = AppendBool(w.B, v) }
func (w *Writer) Int16(v int16) { w.B = AppendInt16(w.B, v) }
func (w *Writer) Int32(v int32) { w.B = AppendInt32(w.B, v) }
func (w *Writer) Int64(v int64) { w.B = AppendInt64(w.B, v) }
func (w *Writer) UUID(u UUID)   { w.B = append(w.B, u[:]...) }

// Uvarint appends an unsigned varint.
func (w *Writer) Uvarint(v uint32) { w.B = AppendUvarint(w.B, v) }

func (w *Writer) strLen(field string, n int) bool {
	if n > 0x7fff {
		w.Fail(ErrStringTooLong, field, "length "+strconv.Itoa(n))
		return false
	}
	if w.flexible {
		w.B = AppendUvarint(w.B, uint32(n)+1)
	} else {
		w.B = AppendInt16(w.B, int16(n))
	}
	return true
}

// String appends a non-nullable string.
func (w *Writer) String(field, s string) {
	if w.flexible && len(s) < 0x7f {
		// The common case, inlined: a one-byte compact length.
		w.B = append(append(w.B, byte(len(s)+1)), s...)
		return
	}
	if w.strLen(field, len(s)) {
		w.B = append(w.B, s...)
	}
}

// NullableString appends a nullable string.
func (w *Writer) NullableString(field string, s NullableString) {
	if !s.Valid {
		w.NullString()
		return
	}
	w.String(field, s.Value)
}

// ClassicNullableString appends an int16-prefixed nullable string whatever
// the version.
func (w *Writer) ClassicNullableString(field string, s NullableString) {
	if !s.Valid {
		w.B = AppendInt16(w.B, -1)
		return
	}
	if len(s.Value) > 0x7fff {
		w.Fail(ErrStringTooLong, field, "length "+strconv.Itoa(len(s.Value)))
		return
	}
	w.B = AppendInt16(w.B, int16(len(s.Value)))
	w.B = append(w.B, s.Value...)
}

// NullString appends the null marker of a nullable string (int16 -1 in the
// classic form).
func (w *Writer) NullString() {
	if w.flexible {
		w.B = append(w.B, 0)
	} else {
		w.B = AppendInt16(w.B, -1)
	}
}

// NullArray appends the null marker of a nullable array or bytes field
// (int32 -1 in the classic form).
func (w *Writer) NullArray() {
	if w.flexible {
		w.B = append(w.B, 0)
	} else {
		w.B = AppendInt32(w.B, -1)
	}
}

// ArrayLen appends the count of a non-null array (or the length of a non-null
// byte string).
func (w *Writer) ArrayLen(n int) {
	if w.flexible {
		w.B = AppendUvarint(w.B, uint32(n)+1)
	} else {
		w.B = AppendInt32(w.B, int32(n))
	}
}

// Bytes appends a non-nullable byte string.
func (w *Writer) Bytes(b []byte) {
	w.ArrayLen(len(b))
	w.B = append(w.B, b...)
}

// NullableBytes appends a nullable byte string (nil is null).
func (w *Writer) NullableBytes(b []byte) {
	if b == nil {
		w.NullArray()
		return
	}
	w.Bytes(b)
}

// Int32Array appends an array of int32; when nullable, nil is written as null.
func (w *Writer) Int32Array(v []int32, nullable bool) {
	if v == nil && nullable {
		w.NullArray()
		return
	}
	w.ArrayLen(len(v))
	b := w.B // a local slice stays in registers across the loop
	for _, x := range v {
		b = AppendInt32(b, x)
	}
	w.B = b
}

// Int8Array appends an array of int8.
func (w *Writer) Int8Array(v []int8, nullable bool) {
	if v == nil && nullable {
		w.NullArray()
		return
	}
	w.ArrayLen(len(v))
	for _, x := range v {
		w.B = append(w.B, byte(x))
	}
}

// StringArray appends an array of non-nullable strings.
func (w *Writer) StringArray(field string, v []string, nullable bool) {
	if v == nil && nullable {
		w.NullArray()
		return
	}
	w.ArrayLen(len(v))
	for _, s := range v {
		w.String(field, s)
	}
}

// UnknownTags appends a tagged-field section holding only unknown tags. At a
// non-flexible version it writes nothing and refuses non-empty tags.
func (w *Writer) UnknownTags(field string, ts TaggedFields) {
	if len(ts) == 0 && w.flexible {
		w.B = append(w.B, 0) // the common case: no tags
		return
	}
	w.unknownTagsSlow(field, ts)
}

func (w *Writer) unknownTagsSlow(field string, ts TaggedFields) {
	if !w.flexible {
		if len(ts) > 0 {
			w.Fail(ErrNotRepresentable, field, "tagged fields at a non-flexible version")
		}
		return
	}
	if len(ts) == 0 {
		w.B = append(w.B, 0)
		return
	}
	if err := checkTags(ts, 0, w.message, field, w.version); err != nil {
		if w.err == nil {
			w.err = err
		}
		return
	}
	w.B = AppendUvarint(w.B, uint32(len(ts)))
	for _, t := range ts {
		w.B = AppendTagHeader(w.B, t.Tag, len(t.Data))
		w.B = append(w.B, t.Data...)
	}
}

// CheckTags validates unknown tags that will be merged with known tagged
// fields; known is the bitmask (tags 0..63) of every known tag of the
// structure, whether or not it is written this time.
func (w *Writer) CheckTags(field string, ts TaggedFields, known uint64) bool {
	if err := checkTags(ts, known, w.message, field, w.version); err != nil {
		if w.err == nil {
			w.err = err
		}
		return false
	}
	return true
}
