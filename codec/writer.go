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

// AppendUUID appends the 16 bytes of u. Two 8-byte moves (the byte order
// is kept, little-endian in and out) cost less than append's call to
// memmove.
func AppendUUID(b []byte, u UUID) []byte {
	b = binary.LittleEndian.AppendUint64(b, binary.LittleEndian.Uint64(u[:8]))
	return binary.LittleEndian.AppendUint64(b, binary.LittleEndian.Uint64(u[8:]))
}

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

// Writer is the encoding state of one message at one version besides its
// bytes: whether the version is flexible, which picks the compact or
// classic form of strings, bytes and arrays, and the first error (a string
// too long, a value the version cannot carry), so message encoders check
// once at the end.
//
// The bytes are not in the Writer: every method takes the slice being
// appended to and returns it extended, like the Append functions above, so
// an encoder keeps it in a local variable. A slice held in the Writer would
// live in memory, the Writer's address being taken, and every field would
// load and store it; a local one stays in registers. The methods are small
// enough to be inlined, with anything unusual (a long string, tags, an
// error) in an out-of-line slow path.
type Writer struct {
	err      *Error
	message  string
	version  int16
	flexible bool
	// short is the length below which String writes a string inline:
	// 0x7f at flexible versions, whose compact length is then one byte,
	// and 0 at classic ones. One comparison with it, rather than two
	// tests, keeps String within the inliner's budget.
	short int
}

// NewWriter returns a Writer for message at version.
func NewWriter(message string, version int16, flexible bool) Writer {
	var w Writer
	w.reset(message, version, flexible)
	return w
}

// reset prepares w for message at version. Encoders set up their Writer in
// place with it: a Writer built and then copied, as NewWriter's result is,
// is written field by field and read back in wider loads, which the
// processor cannot forward from the pending narrow stores, a stall that
// cost a small message's encoding a tenth of its time.
func (w *Writer) reset(message string, version int16, flexible bool) {
	w.err = nil
	w.message = message
	w.version = version
	w.flexible = flexible
	w.short = 0
	if flexible {
		w.short = 0x7f
	}
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

// String appends a non-nullable string.
func (w *Writer) String(b []byte, field, s string) []byte {
	if len(s) < w.short {
		// The common case, inlined: a one-byte compact length.
		return append(append(b, byte(len(s)+1)), s...)
	}
	return w.stringSlow(b, field, s)
}

// stringSlow appends a classic string, or a compact one whose length takes
// more than one byte; it refuses one longer than 0x7fff bytes.
func (w *Writer) stringSlow(b []byte, field, s string) []byte {
	if len(s) > 0x7fff {
		w.Fail(ErrStringTooLong, field, "length "+strconv.Itoa(len(s)))
		return b
	}
	if w.flexible {
		b = AppendUvarint(b, uint32(len(s))+1)
	} else {
		b = AppendInt16(b, int16(len(s)))
	}
	return append(b, s...)
}

// NullableString appends a nullable string. It is a little too large to
// be inlined, so the common cases come first: null or a one-byte compact
// length.
func (w *Writer) NullableString(b []byte, field string, s NullableString) []byte {
	if len(s.Value) < w.short {
		if !s.Valid {
			return append(b, 0)
		}
		return append(append(b, byte(len(s.Value)+1)), s.Value...)
	}
	return w.nullableStringSlow(b, field, s)
}

func (w *Writer) nullableStringSlow(b []byte, field string, s NullableString) []byte {
	if !s.Valid {
		return w.NullString(b)
	}
	return w.stringSlow(b, field, s.Value)
}

// NullableStringAt appends a string field that is nullable at some versions
// only; nullable says whether it is at this one. Null where it is not is
// ErrNotRepresentable, as Kafka's writers refuse it.
func (w *Writer) NullableStringAt(b []byte, field string, s NullableString, nullable bool) []byte {
	if nullable {
		return w.NullableString(b, field, s)
	}
	if !s.Valid {
		w.Fail(ErrNotRepresentable, field, "null where this version's field is not nullable")
		return b
	}
	return w.String(b, field, s.Value)
}

// ClassicNullableString appends an int16-prefixed nullable string whatever
// the version.
func (w *Writer) ClassicNullableString(b []byte, field string, s NullableString) []byte {
	if !s.Valid {
		return AppendInt16(b, -1)
	}
	if len(s.Value) > 0x7fff {
		w.Fail(ErrStringTooLong, field, "length "+strconv.Itoa(len(s.Value)))
		return b
	}
	return append(AppendInt16(b, int16(len(s.Value))), s.Value...)
}

// NullString appends the null marker of a nullable string (int16 -1 in the
// classic form).
func (w *Writer) NullString(b []byte) []byte {
	if w.flexible {
		return append(b, 0)
	}
	return AppendInt16(b, -1)
}

// NullArray appends the null marker of a nullable array or bytes field
// (int32 -1 in the classic form).
func (w *Writer) NullArray(b []byte) []byte {
	if w.flexible {
		return append(b, 0)
	}
	return AppendInt32(b, -1)
}

// ArrayLen appends the count of a non-null array (or the length of a non-null
// byte string).
func (w *Writer) ArrayLen(b []byte, n int) []byte {
	if w.flexible {
		return AppendUvarint(b, uint32(n)+1)
	}
	return AppendInt32(b, int32(n))
}

// Bytes appends a non-nullable byte string.
func (w *Writer) Bytes(b, v []byte) []byte {
	return append(w.ArrayLen(b, len(v)), v...)
}

// NullableBytes appends a nullable byte string (nil is null).
func (w *Writer) NullableBytes(b, v []byte) []byte {
	if v == nil {
		return w.NullArray(b)
	}
	return w.Bytes(b, v)
}

// Int32Array appends an array of int32; when nullable, nil is written as null.
func (w *Writer) Int32Array(b []byte, v []int32, nullable bool) []byte {
	if v == nil && nullable {
		return w.NullArray(b)
	}
	b = w.ArrayLen(b, len(v))
	for _, x := range v {
		b = AppendInt32(b, x)
	}
	return b
}

// Int8Array appends an array of int8.
func (w *Writer) Int8Array(b []byte, v []int8, nullable bool) []byte {
	if v == nil && nullable {
		return w.NullArray(b)
	}
	b = w.ArrayLen(b, len(v))
	for _, x := range v {
		b = append(b, byte(x))
	}
	return b
}

// StringArray appends an array of non-nullable strings.
func (w *Writer) StringArray(b []byte, field string, v []string, nullable bool) []byte {
	if v == nil && nullable {
		return w.NullArray(b)
	}
	b = w.ArrayLen(b, len(v))
	for _, s := range v {
		b = w.String(b, field, s)
	}
	return b
}

// UnknownTags appends a tagged-field section holding only unknown tags. At a
// non-flexible version it writes nothing and refuses non-empty tags.
func (w *Writer) UnknownTags(b []byte, field string, ts TaggedFields) []byte {
	if len(ts) == 0 && w.flexible {
		return append(b, 0) // the common case: no tags
	}
	return w.unknownTagsSlow(b, field, ts)
}

func (w *Writer) unknownTagsSlow(b []byte, field string, ts TaggedFields) []byte {
	if !w.flexible {
		if len(ts) > 0 {
			w.Fail(ErrNotRepresentable, field, "tagged fields at a non-flexible version")
		}
		return b
	}
	if len(ts) == 0 {
		return append(b, 0)
	}
	if err := checkTags(ts, 0, w.message, field, w.version); err != nil {
		if w.err == nil {
			w.err = err
		}
		return b
	}
	b = AppendUvarint(b, uint32(len(ts)))
	return appendTags(b, ts)
}

// appendTags appends the entries of ts, without a count.
func appendTags(b []byte, ts TaggedFields) []byte {
	for _, t := range ts {
		b = AppendTagHeader(b, t.Tag, len(t.Data))
		b = append(b, t.Data...)
	}
	return b
}

// CheckTags validates unknown tags that will be merged with known tagged
// fields; known is the bitmask (tags 0..63) of every known tag of the
// structure, whether or not it is written this time.
func (w *Writer) CheckTags(field string, ts TaggedFields, known uint64) bool {
	if len(ts) == 0 {
		return true // the common case, inlined
	}
	return w.checkTagsSlow(field, ts, known)
}

func (w *Writer) checkTagsSlow(field string, ts TaggedFields, known uint64) bool {
	if err := checkTags(ts, known, w.message, field, w.version); err != nil {
		if w.err == nil {
			w.err = err
		}
		return false
	}
	return true
}
