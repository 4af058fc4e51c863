package codec

import (
	"encoding/binary"
	"strconv"
	"unsafe"
)

// DecodeOptions choose how strictly input is judged and whether decoded
// strings copy the input.
type DecodeOptions struct {
	// Strict reports what Kafka's readers tolerate but a canonical writer
	// never produces: bytes after a complete message (ErrTrailingBytes) and
	// tagged fields out of strictly ascending order (ErrTagOrder). Brokers
	// ignore both; the harness wants to see them.
	Strict bool

	// NoCopy makes decoded strings, byte slices and unknown tagged fields
	// alias the input instead of copying it. Lifetime rule: the decoded
	// message is valid only while the input buffer is neither modified nor
	// reused. Decoding then allocates nothing beyond growing the caller's
	// slices. Without NoCopy, decoding into a reused message keeps each
	// string the message already holds when the new bytes are equal, so a
	// message holding NoCopy strings must be reset (*m = T{}) before it is
	// decoded into without NoCopy: an unchanged string would still alias
	// the old input.
	NoCopy bool

	// OneCopy (ignored with NoCopy) makes the decoded strings of a message
	// share one copy of the input, taken at the first string that must be
	// copied (non-empty and changed) and reaching to the end of the
	// message, instead of one allocation per string: the input buffer may
	// still be reused at once. The price is retention: a string kept after
	// the message (by you, or by a reused message across decodes, as long
	// as it does not change) keeps that whole copy alive, so keep
	// strings.Clone of what you store for long. Byte slices
	// and unknown tagged fields are still copied one by one.
	OneCopy bool
}

// Reader decodes Kafka primitives from a byte slice with a sticky error: the
// first failure is recorded with its field and byte offset, and every read
// after it returns a zero value without touching the input. Message decoders
// therefore read straight through and check Err once at the end.
//
// A Reader knows whether the message version being read is flexible, and its
// String, Bytes and ArrayLen methods pick the compact or classic encoding
// accordingly. The Classic* methods always use the classic form (the request
// header's ClientId needs it).
type Reader struct {
	buf      []byte
	off      int
	err      *Error
	message  string
	version  int16
	flexible bool
	opts     DecodeOptions
	// The OneCopy copy of buf[copyAt:] that strings alias.
	copied []byte
	copyAt int
}

// NewReader returns a Reader over b for one message at the given version.
// flexible says whether that version uses compact encodings and tagged
// fields.
func NewReader(b []byte, message string, version int16, flexible bool, opts DecodeOptions) Reader {
	return Reader{buf: b, message: message, version: version, flexible: flexible, opts: opts}
}

// Reset points r at b for a new message, keeping no state from before.
func (r *Reader) Reset(b []byte, message string, version int16, flexible bool, opts DecodeOptions) {
	*r = Reader{buf: b, message: message, version: version, flexible: flexible, opts: opts}
}

// Err returns the first error, or nil. The result is an *Error when non-nil.
func (r *Reader) Err() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

// Offset is the number of bytes consumed so far.
func (r *Reader) Offset() int { return r.off }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.buf) - r.off }

// Version and Flexible describe the message version being read.
func (r *Reader) Version() int16 { return r.version }
func (r *Reader) Flexible() bool { return r.flexible }

// Fail records kind at offset at (if no error is recorded yet) and makes every
// later read a no-op by exhausting the input.
func (r *Reader) Fail(kind error, field string, at int, detail string) {
	if r.err == nil {
		r.err = &Error{Kind: kind, Message: r.message, Field: field, Version: r.version, Offset: at, Detail: detail}
	}
	r.off = len(r.buf)
}

// truncated records that a fixed-size field of need bytes did not fit; it
// is out of line so that the reads calling it can be inlined.
//
//go:noinline
func (r *Reader) truncated(field string, need int) { r.short(field, r.off, need) }

func (r *Reader) short(field string, at, need int) {
	if r.err != nil {
		return
	}
	r.Fail(ErrTruncated, field, at, "need "+strconv.Itoa(need)+" bytes, have "+strconv.Itoa(len(r.buf)-at))
}

// Finish ends a top-level message: in strict mode, unread bytes are an error.
func (r *Reader) Finish() error {
	if r.err == nil && r.opts.Strict && r.off < len(r.buf) {
		r.Fail(ErrTrailingBytes, "", r.off, strconv.Itoa(len(r.buf)-r.off)+" bytes")
	}
	return r.Err()
}

// The fixed-size reads below are written to be inlined: the bounds test
// and the load, with the failure in an outlined call. Decoders spend most
// of their time in them and in the compact length fast paths further down.

// Int8 reads one byte as a signed integer.
func (r *Reader) Int8(field string) int8 {
	if off := r.off; off < len(r.buf) {
		r.off = off + 1
		return int8(r.buf[off])
	}
	r.truncated(field, 1)
	return 0
}

// Bool reads one byte; any non-zero byte is true, as in Kafka's readers.
func (r *Reader) Bool(field string) bool { return r.Int8(field) != 0 }

// Int16 reads a big-endian int16.
func (r *Reader) Int16(field string) int16 {
	if off := r.off; len(r.buf)-off >= 2 {
		r.off = off + 2
		return int16(binary.BigEndian.Uint16(r.buf[off:]))
	}
	r.truncated(field, 2)
	return 0
}

// Uint16 reads a big-endian uint16.
func (r *Reader) Uint16(field string) uint16 { return uint16(r.Int16(field)) }

// Int32 reads a big-endian int32.
func (r *Reader) Int32(field string) int32 {
	if off := r.off; len(r.buf)-off >= 4 {
		r.off = off + 4
		return int32(binary.BigEndian.Uint32(r.buf[off:]))
	}
	r.truncated(field, 4)
	return 0
}

// Uint32 reads a big-endian uint32.
func (r *Reader) Uint32(field string) uint32 { return uint32(r.Int32(field)) }

// Int64 reads a big-endian int64.
func (r *Reader) Int64(field string) int64 {
	if off := r.off; len(r.buf)-off >= 8 {
		r.off = off + 8
		return int64(binary.BigEndian.Uint64(r.buf[off:]))
	}
	r.truncated(field, 8)
	return 0
}

// UUID reads 16 bytes.
func (r *Reader) UUID(field string) (u UUID) {
	if off := r.off; len(r.buf)-off >= 16 {
		r.off = off + 16
		return UUID(r.buf[off : off+16])
	}
	r.truncated(field, 16)
	return u
}

// Uvarint reads Kafka's unsigned varint: 7 bits per byte, least significant
// group first, at most 5 bytes. As in Kafka's Java reader, bits of the fifth
// byte beyond the 32nd are dropped and non-minimal encodings are accepted; a
// fifth byte with its continuation bit set is ErrVarintTooLong.
func (r *Reader) Uvarint(field string) uint32 {
	if off := r.off; off < len(r.buf) && r.buf[off] < 0x80 {
		r.off = off + 1
		return uint32(r.buf[off])
	}
	return r.uvarintSlow(field)
}

func (r *Reader) uvarintSlow(field string) uint32 {
	b := r.buf[r.off:]
	var v uint32
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			r.short(field, r.off, i+1)
			return 0
		}
		c := b[i]
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.off += i + 1
			return v
		}
	}
	r.Fail(ErrVarintTooLong, field, r.off, "")
	return 0
}

// Varint reads a zig-zag encoded signed 32-bit varint (used inside records).
func (r *Reader) Varint(field string) int32 {
	u := r.Uvarint(field)
	return int32(u>>1) ^ -int32(u&1)
}

// Uvarlong reads an unsigned varint of up to 10 bytes.
func (r *Reader) Uvarlong(field string) uint64 {
	b := r.buf[r.off:]
	var v uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			r.short(field, r.off, i+1)
			return 0
		}
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.off += i + 1
			return v
		}
	}
	r.Fail(ErrVarintTooLong, field, r.off, "")
	return 0
}

// Varlong reads a zig-zag encoded signed 64-bit varint.
func (r *Reader) Varlong(field string) int64 {
	u := r.Uvarlong(field)
	return int64(u>>1) ^ -int64(u&1)
}

// length reads a string/bytes/array length prefix. Classic form: int16 for
// strings, int32 for bytes and arrays. Compact form: uvarint(n+1), which Kafka
// reads as int32 arithmetic, so 0 (and huge values that wrap) mean null.
// It returns -1 for null.
func (r *Reader) length(field string, classic16 bool, compact bool) int {
	if compact {
		return int(int32(r.Uvarint(field)) - 1)
	}
	if classic16 {
		return int(r.Int16(field))
	}
	return int(r.Int32(field))
}

// take returns n bytes at the current offset, after checking that they exist.
func (r *Reader) take(field string, at, n int) []byte {
	if n > len(r.buf)-r.off {
		if r.err == nil {
			r.Fail(ErrLengthOverrun, field, at, "length "+strconv.Itoa(n)+", "+strconv.Itoa(len(r.buf)-r.off)+" bytes left")
		}
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// str returns b, which the caller has just consumed (so it ends at r.off),
// as a string according to the copy options. prev is the field's value
// before this decode: when b holds the same bytes, prev itself is returned
// and nothing is copied. A reused message whose strings have not changed
// (a member's group, id, rack and topics on every heartbeat) thus decodes
// without allocating. NoCopy ignores prev: its strings must alias this
// input, whose lifetime the caller controls, not an earlier one.
func (r *Reader) str(b []byte, prev string) string {
	if len(b) == 0 {
		return ""
	}
	if r.opts.NoCopy {
		return unsafe.String(&b[0], len(b))
	}
	if string(b) == prev {
		return prev
	}
	if r.opts.OneCopy {
		return r.sharedString(len(b))
	}
	return string(b)
}

// sharedString returns the n bytes before r.off as a string inside the
// reader's one copy of the input, making that copy (from here to the end of
// the readable input) when there is none yet or it does not cover them,
// as after a known tagged field, whose value was read with buf confined.
func (r *Reader) sharedString(n int) string {
	start := r.off - n
	i := start - r.copyAt
	if r.copied == nil || i < 0 || i+n > len(r.copied) {
		r.copied = append([]byte(nil), r.buf[start:]...)
		r.copyAt, i = start, 0
	}
	return unsafe.String(&r.copied[i], n)
}

func (r *Reader) bytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	if r.opts.NoCopy {
		return b
	}
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

func (r *Reader) stringBody(field string, at int, n int, prev string) string {
	if n > 0x7fff {
		r.Fail(ErrStringTooLong, field, at, "length "+strconv.Itoa(n))
		return ""
	}
	return r.str(r.take(field, at, n), prev)
}

// compactShort is the fast path of compact strings and byte strings: when
// the version is flexible and the length is one varint byte, non-null, with
// all its bytes present, it returns them and moves past; otherwise ok is
// false and the caller takes the general path (which also handles null,
// long and truncated values, and a recorded error, after which r.off is at
// the end of the input).
func (r *Reader) compactShort() (b []byte, ok bool) {
	off := r.off
	if !r.flexible || off >= len(r.buf) {
		return nil, false
	}
	c := int(r.buf[off])
	end := off + c // one length byte, then c-1 bytes
	if c == 0 || c >= 0x80 || end > len(r.buf) {
		return nil, false
	}
	r.off = end
	return r.buf[off+1 : end : end], true
}

// String reads a non-nullable string in the version's encoding. prev is
// the value the field held before (the empty string in a fresh message):
// without NoCopy, an unchanged string is returned as prev, uncopied. Pass
// a value from an earlier NoCopy decode only under NoCopy, since it aliases
// that decode's input.
func (r *Reader) String(field string, prev string) string {
	if b, ok := r.compactShort(); ok {
		return r.str(b, prev)
	}
	return r.stringSlow(field, prev)
}

func (r *Reader) stringSlow(field string, prev string) string {
	at := r.off
	n := r.length(field, true, r.flexible)
	if n < 0 {
		if r.err == nil {
			r.Fail(ErrNegativeLength, field, at, "")
		}
		return ""
	}
	return r.stringBody(field, at, n, prev)
}

// NullableString reads a nullable string in the version's encoding; prev
// is as for String.
func (r *Reader) NullableString(field string, prev NullableString) NullableString {
	if b, ok := r.compactShort(); ok {
		return NullableString{Value: r.str(b, prev.Value), Valid: true}
	}
	return r.nullableStringSlow(field, prev.Value)
}

func (r *Reader) nullableStringSlow(field string, prev string) NullableString {
	at := r.off
	n := r.length(field, true, r.flexible)
	if n < 0 {
		return Null
	}
	return NullableString{Value: r.stringBody(field, at, n, prev), Valid: r.err == nil}
}

// NullableStringAt reads a string field that is nullable at some versions
// only; nullable says whether it is at this one. Where it is not, the value
// read is never null.
func (r *Reader) NullableStringAt(field string, prev NullableString, nullable bool) NullableString {
	if nullable {
		return r.NullableString(field, prev)
	}
	return NullableString{Value: r.String(field, prev.Value), Valid: true}
}

// ClassicNullableString reads an int16-prefixed nullable string whatever the
// version (the request header's ClientId); prev is as for String.
func (r *Reader) ClassicNullableString(field string, prev NullableString) NullableString {
	at := r.off
	n := int(r.Int16(field))
	if n < 0 {
		return Null
	}
	return NullableString{Value: r.str(r.take(field, at, n), prev.Value), Valid: r.err == nil}
}

// Bytes reads a non-nullable byte string in the version's encoding.
func (r *Reader) Bytes(field string) []byte {
	at := r.off
	n := r.length(field, false, r.flexible)
	if n < 0 {
		if r.err == nil {
			r.Fail(ErrNegativeLength, field, at, "")
		}
		return nil
	}
	b := r.take(field, at, n)
	if len(b) == 0 {
		return nil // empty and absent are the same for a non-nullable field
	}
	return r.bytes(b)
}

// NullableBytes reads a nullable byte string; nil is null, an empty non-nil
// slice is empty.
func (r *Reader) NullableBytes(field string) []byte {
	at := r.off
	n := r.length(field, false, r.flexible)
	if n < 0 {
		return nil
	}
	b := r.take(field, at, n)
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return []byte{}
	}
	return r.bytes(b)
}

// ArrayLen reads an array count in the version's encoding and checks that
// count elements of at least minSize bytes each fit in the remaining input,
// so the caller may allocate count elements. It returns -1 for a null array;
// nullable says whether null is allowed.
func (r *Reader) ArrayLen(field string, minSize int, nullable bool) int {
	// Fast path: a compact count in one byte, non-null, that fits.
	if off := r.off; r.flexible && off < len(r.buf) {
		if c := int(r.buf[off]); c > 0 && c < 0x80 && (c-1)*max(minSize, 1) <= len(r.buf)-off-1 {
			r.off = off + 1
			return c - 1
		}
	}
	return r.arrayLenSlow(field, minSize, nullable)
}

func (r *Reader) arrayLenSlow(field string, minSize int, nullable bool) int {
	at := r.off
	n := r.length(field, false, r.flexible)
	if n < 0 {
		if !nullable && r.err == nil {
			r.Fail(ErrNegativeLength, field, at, "")
		}
		if r.err != nil {
			return 0
		}
		return -1
	}
	if minSize < 1 {
		minSize = 1
	}
	if n > (len(r.buf)-r.off)/minSize {
		if r.err == nil {
			r.Fail(ErrLengthOverrun, field, at, "count "+strconv.Itoa(n)+", "+strconv.Itoa(len(r.buf)-r.off)+" bytes left")
		}
		return 0
	}
	return n
}

// Int32Array reads a (nullable when nullable is set) array of int32 into
// dst[:0], reusing its storage. A null array returns nil; an empty one
// returns a non-nil empty slice.
func (r *Reader) Int32Array(field string, dst []int32, nullable bool) []int32 {
	n := r.ArrayLen(field, 4, nullable)
	if n < 0 {
		return nil
	}
	dst = sized(dst, n, nullable)
	for i := range dst {
		dst[i] = int32(binary.BigEndian.Uint32(r.buf[r.off:]))
		r.off += 4
	}
	return dst
}

// Int8Array reads an array of int8 into dst[:0].
func (r *Reader) Int8Array(field string, dst []int8, nullable bool) []int8 {
	n := r.ArrayLen(field, 1, nullable)
	if n < 0 {
		return nil
	}
	dst = sized(dst, n, nullable)
	for i := range dst {
		dst[i] = int8(r.buf[r.off])
		r.off++
	}
	return dst
}

// StringArray reads an array of non-nullable strings into dst[:0]; the
// strings dst already holds serve as prev values (see String).
func (r *Reader) StringArray(field string, dst []string, nullable bool) []string {
	min := 2
	if r.flexible {
		min = 1
	}
	n := r.ArrayLen(field, min, nullable)
	if n < 0 {
		return nil
	}
	dst = sized(dst, n, nullable)
	for i := range dst {
		dst[i] = r.String(field, dst[i])
	}
	return dst
}

// grow returns dst resized to n elements, reusing its storage when it is
// large enough. It never returns nil, so a decoded empty nullable array stays
// distinguishable from a null one.
func grow[T any](dst []T, n int) []T {
	if cap(dst) >= n && dst != nil {
		return dst[:n]
	}
	return make([]T, n)
}

// resize is grow for non-nullable arrays, where empty and nil mean the same.
// An empty array always decodes to nil, so that decoding into a reused
// message gives exactly (reflect.DeepEqual) what decoding into a fresh one
// gives; the price is that an empty array drops the storage it had.
func resize[T any](dst []T, n int) []T {
	if n == 0 {
		return nil
	}
	return grow(dst, n)
}

func sized[T any](dst []T, n int, nullable bool) []T {
	if nullable {
		return grow(dst, n)
	}
	return resize(dst, n)
}
