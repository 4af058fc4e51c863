package history

import (
	"testing"
)

func TestFate(t *testing.T) {
	for _, c := range []struct {
		op   Op
		want string
	}{
		{Op{}, ""},
		{Op{Note: "response lost"}, "response lost: the client never saw this"},
		{Op{Note: "request delayed 2 rounds; response lost"}, "request delayed 2 rounds: it arrived after later requests of other connections; response lost: the client never saw this"},
		{Op{Note: "no response: connection reset", Return: Never}, "no response (connection reset): the outcome is unknown"},
		{Op{Note: "no response: unsupported", Refused: true}, "no response (unsupported): refused: the coordinator applied nothing"},
		{Op{Restart: true}, "the coordinator restarted: every connection closed, timers start afresh"},
	} {
		if got := Fate(c.op); got != c.want {
			t.Errorf("Fate(%q) = %q, want %q", c.op.Note, got, c.want)
		}
	}
}
