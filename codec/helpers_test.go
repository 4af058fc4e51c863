package codec_test

import (
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// wire turns an annotated hex listing into bytes. On each line everything
// after '#' is a comment; spaces are ignored. Test vectors are written this
// way so that a reader can check every field against docs/PROTOCOL.md.
func wire(t testing.TB, listing string) []byte {
	t.Helper()
	var sb strings.Builder
	for _, line := range strings.Split(listing, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		sb.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(sb.String())
	if err != nil {
		t.Fatalf("bad hex listing: %v\n%s", err, listing)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// fresh returns a new zero message of the same type as m.
func fresh(m codec.Message) codec.Message {
	return reflect.New(reflect.TypeOf(m).Elem()).Interface().(codec.Message)
}

// uuidOf returns a UUID whose bytes are b0, b0+1, ..., b0+15.
func uuidOf(b0 byte) codec.UUID {
	var u codec.UUID
	for i := range u {
		u[i] = b0 + byte(i)
	}
	return u
}

// wantError checks that err is a *codec.Error of kind with the given
// location. Offset -1 means "encoding error".
func wantError(t testing.TB, what string, err error, kind error, message, field string, version int16, offset int) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: want %v error, got success", what, kind)
	}
	var ce *codec.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s: want *codec.Error, got %T %v", what, err, err)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("%s: want kind %q, got %v", what, kind, err)
	}
	if ce.Message != message || ce.Field != field || ce.Version != version || ce.Offset != offset {
		t.Fatalf("%s: want %s/%s v%d at %d, got %s/%s v%d at %d (%v)", what,
			message, field, version, offset, ce.Message, ce.Field, ce.Version, ce.Offset, err)
	}
}
