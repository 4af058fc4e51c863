package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// readFrame is codec.ReadFrame over a bufio.Reader: on every input both
// return the same frame, or the same kind of error.
func TestReadFrameAgreesWithCodec(t *testing.T) {
	frame := func(size uint32, body int) []byte {
		return append(binary.BigEndian.AppendUint32(nil, size), bytes.Repeat([]byte{7}, body)...)
	}
	cases := []struct {
		name string
		in   []byte
		max  int
		want error // nil: the frame is read
	}{
		{"an empty stream is a clean end", nil, 100, io.EOF},
		{"a stream ending in the size prefix", []byte{0, 0}, 100, io.ErrUnexpectedEOF},
		{"a stream ending right after the size prefix", frame(10, 0), 100, io.ErrUnexpectedEOF},
		{"a stream ending in the body", frame(10, 5), 100, io.ErrUnexpectedEOF},
		{"an empty frame", frame(0, 0), 100, nil},
		{"a frame at the cap", frame(100, 100), 100, nil},
		{"a frame above the cap", frame(101, 101), 100, codec.ErrFrameTooLarge},
		{"a negative size", frame(1<<31, 0), 100, codec.ErrFrameTooLarge},
		{"a frame larger than a chunk", frame(200_000, 200_000), 1 << 20, nil},
		{"a large frame cut short", frame(200_000, 150_000), 1 << 20, io.ErrUnexpectedEOF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readFrame(bufio.NewReaderSize(bytes.NewReader(tc.in), 16), nil, tc.max)
			ref, refErr := codec.ReadFrame(bytes.NewReader(tc.in), nil, tc.max)
			if tc.want == nil {
				if err != nil || !bytes.Equal(got, tc.in[4:]) {
					t.Fatalf("the frame should be read whole: %d bytes, %v", len(got), err)
				}
			} else if !errors.Is(err, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, err)
			}
			if !bytes.Equal(got, ref) || (err == nil) != (refErr == nil) || err != nil && !errors.Is(refErr, tc.want) {
				t.Fatalf("codec.ReadFrame disagrees: %d bytes, %v vs %d bytes, %v", len(ref), refErr, len(got), err)
			}
		})
	}
}

// A reused buffer large enough is read into in place.
func TestReadFrameReusesBuffer(t *testing.T) {
	in := append(binary.BigEndian.AppendUint32(nil, 3), 1, 2, 3)
	buf := make([]byte, 0, 8)
	got, err := readFrame(bufio.NewReader(bytes.NewReader(in)), buf, 100)
	if err != nil || &got[0] != &buf[:1][0] {
		t.Fatalf("the frame should land in the caller's buffer: %v", err)
	}
}
