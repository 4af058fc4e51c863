package codec

import "strconv"

// Tagged-field sections (KIP-482), in flexible versions only:
//
//	uvarint N, then N × { uvarint tag, uvarint size, size bytes }
//
// Kafka's readers accept tags in any order and repeated; a known tag is read
// by its type, an unknown one is kept raw. Writers must emit strictly
// ascending, unique tags. This codec reads like Kafka (the last of a repeated
// known tag wins) except that it also checks a known tag's declared size
// against its value (ErrTagSize) rather than desynchronizing, and in strict
// mode reports any order that is not strictly ascending (ErrTagOrder).

// TagSection reads tagged-field sections. Use it as:
//
//	ts := r.BeginTags("field")
//	for ts.Next(r) {
//		switch ts.Tag {
//		case 0: ... read the known value with r, then ts.EndKnown(r)
//		default: unknown = ts.Keep(r, unknown)
//		}
//	}
type TagSection struct {
	Tag     uint32
	Size    int
	field   string
	n       int
	i       int
	last    int64
	start   int    // offset of the current tag's value
	limit   []byte // the full buffer while a known tag's value is being read
	atEntry int
}

// BeginTags reads the count of a tagged-field section.
func (r *Reader) BeginTags(field string) TagSection {
	at := r.off
	n := int(int32(r.Uvarint(field)))
	if n < 0 {
		r.Fail(ErrNegativeLength, field, at, "tag count "+strconv.Itoa(n))
		n = 0
	}
	// Each entry needs at least two bytes (tag and size).
	if n > (len(r.buf)-r.off)/2 {
		if r.err == nil {
			r.Fail(ErrLengthOverrun, field, at, "tag count "+strconv.Itoa(n)+", "+strconv.Itoa(len(r.buf)-r.off)+" bytes left")
		}
		n = 0
	}
	return TagSection{field: field, n: n, last: -1}
}

// Next reads the next entry's tag and size. It returns false at the end of
// the section or on error.
func (ts *TagSection) Next(r *Reader) bool {
	if ts.i >= ts.n || r.err != nil {
		return false
	}
	ts.i++
	ts.atEntry = r.off
	tag := r.Uvarint(ts.field)
	sizeAt := r.off
	size := int(int32(r.Uvarint(ts.field)))
	if r.err != nil {
		return false
	}
	if size < 0 {
		r.Fail(ErrNegativeLength, ts.field, sizeAt, "tag "+strconv.FormatUint(uint64(tag), 10)+" size "+strconv.Itoa(size))
		return false
	}
	if size > len(r.buf)-r.off {
		r.Fail(ErrLengthOverrun, ts.field, sizeAt, "tag "+strconv.FormatUint(uint64(tag), 10)+" size "+strconv.Itoa(size)+", "+strconv.Itoa(len(r.buf)-r.off)+" bytes left")
		return false
	}
	if r.opts.Strict && int64(tag) <= ts.last {
		r.Fail(ErrTagOrder, ts.field, ts.atEntry, "tag "+strconv.FormatUint(uint64(tag), 10)+" after "+strconv.FormatInt(ts.last, 10))
		return false
	}
	ts.last = int64(tag)
	ts.Tag, ts.Size = tag, size
	ts.start = r.off
	// Confine reads of a known value to its declared size.
	ts.limit = r.buf
	r.buf = r.buf[:r.off+size]
	return true
}

// EndKnown finishes a known tag whose value the caller has read: the value
// must have used exactly the declared size.
//
// Next already checked that the declared size fits in the input, so a value
// that ran out of bytes while confined to its size (ErrTruncated, or a
// length prefix reaching past it, ErrLengthOverrun) did not meet the end of
// the input but the end of its declared size: that is reported as
// ErrTagSize too, at the value's offset, so the kind says what is wrong.
func (ts *TagSection) EndKnown(r *Reader, name string) {
	full := ts.limit
	ts.limit = nil
	end := ts.start + ts.Size
	if e := r.err; e != nil && e.Offset >= ts.start && (e.Kind == ErrTruncated || e.Kind == ErrLengthOverrun) {
		e.Kind, e.Field, e.Offset = ErrTagSize, name, ts.start
		e.Detail = "tag " + strconv.FormatUint(uint64(ts.Tag), 10) + " declared " + strconv.Itoa(ts.Size) + " bytes, value needs more: " + e.Detail
	}
	if r.err == nil && r.off != end {
		r.Fail(ErrTagSize, name, ts.start, "tag "+strconv.FormatUint(uint64(ts.Tag), 10)+" declared "+strconv.Itoa(ts.Size)+" bytes, value used "+strconv.Itoa(r.off-ts.start))
	}
	r.buf = full
	if r.err != nil {
		r.off = len(r.buf)
	}
}

// Keep stores the current entry as an unknown tagged field in dst.
func (ts *TagSection) Keep(r *Reader, dst TaggedFields) TaggedFields {
	r.buf = ts.limit
	ts.limit = nil
	data := r.bytes(r.buf[ts.start : ts.start+ts.Size : ts.start+ts.Size])
	if data == nil {
		data = []byte{}
	}
	r.off = ts.start + ts.Size
	return append(dst, TaggedField{Tag: ts.Tag, Data: data})
}

// UnknownTags reads a section in which this codec knows no tag. It returns
// nil when the section is empty and otherwise appends to dst[:0].
func (r *Reader) UnknownTags(field string, dst TaggedFields) TaggedFields {
	if off := r.off; off < len(r.buf) && r.buf[off] == 0 {
		r.off = off + 1 // the common case, inlined: no tags
		return nil
	}
	return r.unknownTagsSlow(field, dst)
}

func (r *Reader) unknownTagsSlow(field string, dst TaggedFields) TaggedFields {
	ts := r.BeginTags(field)
	dst = dst[:0]
	for ts.Next(r) {
		dst = ts.Keep(r, dst)
	}
	if len(dst) == 0 {
		return nil
	}
	return dst
}

// AppendTagHeader appends the tag number and value size of one entry.
func AppendTagHeader(b []byte, tag uint32, size int) []byte {
	b = AppendUvarint(b, tag)
	return AppendUvarint(b, uint32(size))
}

// checkTags returns an error unless the unknown tags are strictly ascending
// and none of them collides with a known tag of the structure (known is a
// bitmask of its known tags, 0..63, written or not).
func checkTags(ts TaggedFields, known uint64, message, field string, version int16) *Error {
	last := int64(-1)
	for _, t := range ts {
		if int64(t.Tag) <= last {
			return encodeError(ErrTagOrder, message, field, version, "tag "+strconv.FormatUint(uint64(t.Tag), 10)+" after "+strconv.FormatInt(last, 10))
		}
		if t.Tag < 64 && known&(1<<t.Tag) != 0 {
			return encodeError(ErrTagOrder, message, field, version, "unknown tag "+strconv.FormatUint(uint64(t.Tag), 10)+" collides with a known tag")
		}
		last = int64(t.Tag)
	}
	return nil
}

// appendTagged appends a known tagged field: its tag, its size and its
// value, encoded beforehand since the size comes first.
func appendTagged(b []byte, tag uint32, value []byte) []byte {
	b = AppendTagHeader(b, tag, len(value))
	return append(b, value...)
}
