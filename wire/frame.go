package wire

import (
	"bufio"
	"encoding/binary"
	"io"
	"strconv"

	"github.com/ghostcheck/ghostcheck/codec"
)

// readFrame reads one frame from br into buf (reused when large enough)
// and returns its contents without the size prefix. It is codec.ReadFrame
// over a bufio.Reader: the size prefix is peeked in br's buffer rather
// than read into a local array (which escapes through the io.Reader
// interface, an allocation per response). The size is checked against
// max before anything is allocated, and the body is read by
// codec.AppendFrameBytes, which grows as data arrives, so a peer
// announcing a large frame and sending little costs little.
//
// io.EOF means the stream ended cleanly before a frame began; a stream
// that ends anywhere inside a frame is io.ErrUnexpectedEOF.
func readFrame(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	p, err := br.Peek(4)
	if err != nil {
		if err == io.EOF && len(p) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(p)))
	_, _ = br.Discard(4)
	if n < 0 || n > max {
		return nil, &codec.Error{Kind: codec.ErrFrameTooLarge, Message: "Frame", Field: "Size", Offset: 0,
			Detail: "size " + strconv.Itoa(n) + ", maximum " + strconv.Itoa(max)}
	}
	b, err := codec.AppendFrameBytes(buf[:0], br, n)
	if err != nil {
		return nil, err
	}
	return b, nil
}
