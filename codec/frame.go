package codec

import (
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strconv"
)

// DefaultMaxFrameSize is Kafka's default socket.request.max.bytes (100 MiB).
const DefaultMaxFrameSize = 100 << 20

// Frames: every request and response is an int32 size (big-endian, counting
// the bytes that follow) and then that many bytes of header and body.

// BeginFrame appends a placeholder size prefix and returns the extended
// slice and the offset of the prefix, for FinishFrame.
func BeginFrame(dst []byte) ([]byte, int) {
	return append(dst, 0, 0, 0, 0), len(dst)
}

// FinishFrame writes the size of everything after the prefix at start.
func FinishFrame(b []byte, start int) []byte {
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// SplitFrame takes one frame from the front of b: it returns the frame's
// contents (without the size prefix) and the bytes after it. It returns
// ErrTruncated when b does not yet hold a whole frame (more may arrive), and
// ErrFrameTooLarge when the size prefix is negative or above max.
func SplitFrame(b []byte, max int) (frame, rest []byte, err error) {
	if len(b) < 4 {
		return nil, b, &Error{Kind: ErrTruncated, Message: "Frame", Field: "Size", Offset: 0, Detail: "need 4 bytes, have " + strconv.Itoa(len(b))}
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if err := checkFrameSize(n, max); err != nil {
		return nil, b, err
	}
	if len(b)-4 < n {
		return nil, b, &Error{Kind: ErrTruncated, Message: "Frame", Offset: 4, Detail: "frame of " + strconv.Itoa(n) + " bytes, have " + strconv.Itoa(len(b)-4)}
	}
	return b[4 : 4+n : 4+n], b[4+n:], nil
}

func checkFrameSize(n, max int) error {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	if n < 0 || n > max {
		return &Error{Kind: ErrFrameTooLarge, Message: "Frame", Field: "Size", Offset: 0, Detail: "size " + strconv.Itoa(n) + ", maximum " + strconv.Itoa(max)}
	}
	return nil
}

// ReadFrame reads one frame from rd into buf (reused when large enough) and
// returns its contents without the size prefix. The size is checked against
// max before anything is allocated, and the body is read as AppendFrameBytes
// reads it, so a peer that announces a large frame and sends little costs
// little memory.
//
// io.EOF means the stream ended cleanly before a frame began; a stream that
// ends anywhere inside a frame, even right after its size prefix, is
// io.ErrUnexpectedEOF.
func ReadFrame(rd io.Reader, buf []byte, max int) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(rd, size[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(size[:])))
	if err := checkFrameSize(n, max); err != nil {
		return nil, err
	}
	b, err := AppendFrameBytes(buf[:0], rd, n)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// frameChunk is how much AppendFrameBytes grows its buffer by at a time.
const frameChunk = 64 << 10

// AppendFrameBytes appends the next n bytes of rd, the rest of a frame
// whose size prefix was read (and checked), to dst. Every reader of frames
// (ReadFrame, wire's client connection, the proxy) reads a frame's body
// with it, because the size is the peer's word: dst grows as the bytes
// arrive, 64 KiB at a time, never by n at once, so a peer that announces
// 100 MiB and sends 40 KiB costs 64 KiB. A dst with room for n bytes is
// filled in place (no allocation). A stream that ends before n bytes is
// io.ErrUnexpectedEOF: the frame had begun.
func AppendFrameBytes(dst []byte, rd io.Reader, n int) ([]byte, error) {
	for n > 0 {
		want := n
		if cap(dst)-len(dst) < n {
			want = min(n, frameChunk)
			dst = slices.Grow(dst, want)
		}
		start := len(dst)
		dst = dst[:start+want]
		if _, err := io.ReadFull(rd, dst[start:]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return dst[:start], err
		}
		n -= want
	}
	return dst, nil
}

// AppendRequest appends a whole request frame: size, header (at the version
// the api key and version call for) and body.
func AppendRequest(dst []byte, h *RequestHeader, body Message) ([]byte, error) {
	if body.IsResponse() || body.Key() != h.RequestApiKey {
		return dst, encodeError(ErrNotRepresentable, requestHeaderName, "RequestApiKey", 0, "header key "+h.RequestApiKey.String()+" does not match body "+body.Key().String())
	}
	// The header version, as RequestHeaderVersion has it, without the
	// call: a request's fixed cost is most of a small one's encoding.
	a := Lookup(h.RequestApiKey)
	if a == nil || h.RequestApiVersion < 0 {
		_, err := h.HeaderVersion()
		return dst, err
	}
	hv := int16(1)
	if a.Flexible(h.RequestApiVersion) {
		hv = 2
	}
	b, start := BeginFrame(dst)
	var err error
	if b, err = h.AppendTo(b, hv); err != nil {
		return dst, err
	}
	if b, err = body.AppendTo(b, h.RequestApiVersion); err != nil {
		return dst, err
	}
	return FinishFrame(b, start), nil
}

// AppendResponse appends a whole response frame for a request of key at
// version: size, response header (v0 for ApiVersions, else by flexibility),
// body.
func AppendResponse(dst []byte, correlationID int32, version int16, body Message) ([]byte, error) {
	if !body.IsResponse() {
		return dst, encodeError(ErrNotRepresentable, responseHeaderName, "", 0, "body is a request")
	}
	hv, err := ResponseHeaderVersion(body.Key(), version)
	if err != nil {
		return dst, err
	}
	b, start := BeginFrame(dst)
	h := ResponseHeader{CorrelationId: correlationID}
	if b, err = h.AppendTo(b, hv); err != nil {
		return dst, err
	}
	if b, err = body.AppendTo(b, version); err != nil {
		return dst, err
	}
	return FinishFrame(b, start), nil
}

// DecodeRequest decodes a request frame (without its size prefix): the
// header, then a new body of the type its api key names. Error offsets count
// from the start of frame.
func DecodeRequest(frame []byte, opts DecodeOptions) (RequestHeader, Message, error) {
	var h RequestHeader
	off, err := ParseRequestHeader(frame, &h, opts)
	if err != nil {
		return h, nil, err
	}
	body := Lookup(h.RequestApiKey).NewMessage(false)
	if err := decodeBodyAt(body, frame, off, h.RequestApiVersion, opts); err != nil {
		return h, body, err
	}
	return h, body, nil
}

// DecodeResponse decodes a response frame (without its size prefix) to a
// request of key at version. Responses do not name their type, so the
// caller says what it asked.
func DecodeResponse(frame []byte, key APIKey, version int16, opts DecodeOptions) (ResponseHeader, Message, error) {
	var h ResponseHeader
	off, err := readResponseHeader(frame, &h, key, version, opts)
	if err != nil {
		return h, nil, err
	}
	body := Lookup(key).NewMessage(true)
	if err := decodeBodyAt(body, frame, off, version, opts); err != nil {
		return h, body, err
	}
	return h, body, nil
}

// errNotResponse is DecodeResponseInto's answer to a request message.
var errNotResponse = errors.New("codec: DecodeResponseInto needs a response message")

// DecodeResponseInto is DecodeResponse into the caller's header and
// response m (whose type says what was asked), reusing their storage: a
// client reading a stream of the same responses allocates nothing.
func DecodeResponseInto(frame []byte, h *ResponseHeader, m Message, version int16, opts DecodeOptions) error {
	if !m.IsResponse() {
		return errNotResponse
	}
	off, err := readResponseHeader(frame, h, m.Key(), version, opts)
	if err != nil {
		return err
	}
	return decodeBodyAt(m, frame, off, version, opts)
}

// readResponseHeader decodes the response header a response of key at
// version has, returning where the body starts.
func readResponseHeader(frame []byte, h *ResponseHeader, key APIKey, version int16, opts DecodeOptions) (int, error) {
	hv, err := ResponseHeaderVersion(key, version)
	if err != nil {
		return 0, err
	}
	var r Reader
	r.Reset(frame, responseHeaderName, hv, hv >= 1, opts)
	h.ReadFrom(&r, hv)
	return r.off, r.Err()
}
