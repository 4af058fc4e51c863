package codectest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
)

// WireDiff compares two messages as a peer reads them, encoded at version:
// "" when the bytes are equal, else both messages (as JSON) with their
// encoding errors.
func WireDiff(version int16, got, want codec.Message) string {
	gb, gerr := got.AppendTo(nil, version)
	wb, werr := want.AppendTo(nil, version)
	if gerr == nil && werr == nil && bytes.Equal(gb, wb) {
		return ""
	}
	return fmt.Sprintf("got  %s (encode error %v)\nwant %s (encode error %v)", asJSON(got), gerr, asJSON(want), werr)
}

func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
