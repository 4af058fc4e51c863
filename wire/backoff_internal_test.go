package wire

import (
	"testing"
	"time"
)

// A backoff doubles from Base, is spread by ±Jitter and never exceeds
// Max, however many tries came before (no overflow).
func TestBackoffWait(t *testing.T) {
	b := Backoff{}.withDefaults() // Kafka's: 100 ms, 1 s, ±20 %
	cases := []struct {
		n    int
		u    float64
		want time.Duration
	}{
		{0, 0.5, 100 * time.Millisecond},
		{0, 0, 80 * time.Millisecond},
		{0, 1, 120 * time.Millisecond},
		{1, 0.5, 200 * time.Millisecond},
		{3, 0.5, 800 * time.Millisecond},
		{3, 1, 960 * time.Millisecond},
		{4, 0.5, time.Second},
		{4, 1, time.Second},
		{4, 0, 800 * time.Millisecond},
		{1 << 30, 0.5, time.Second},
	}
	for _, tc := range cases {
		if got := b.wait(tc.n, tc.u); got != tc.want {
			t.Errorf("wait(%d, %v) = %v, want %v", tc.n, tc.u, got, tc.want)
		}
	}
	if got := (Backoff{Jitter: -1}).withDefaults().wait(0, 1); got != DefaultBackoffBase {
		t.Errorf("no jitter: %v", got)
	}
	if got := (Backoff{Base: time.Hour, Max: time.Second}).withDefaults().wait(0, 0.5); got != time.Second {
		t.Errorf("a base above the cap: %v", got)
	}
}

// The first retry after a move goes at once, a second in a row waits;
// every other retry waits, growing; the retries stop at MaxRetries and
// before MaxWait would pass.
func TestBudget(t *testing.T) {
	b := Backoff{Base: time.Millisecond, Max: 4 * time.Millisecond, Jitter: -1, MaxRetries: 5, MaxWait: time.Minute}.withDefaults()
	bg := newBudget(b)
	steps := []struct {
		moved bool
		want  time.Duration
	}{
		{true, 0},
		{true, time.Millisecond},
		{false, 2 * time.Millisecond},
		{true, 0},
		{false, 4 * time.Millisecond},
	}
	for i, s := range steps {
		d, ok := bg.next(s.moved, 0.5)
		if !ok || d != s.want {
			t.Fatalf("retry %d (moved %v): %v %v, want %v", i+1, s.moved, d, ok, s.want)
		}
	}
	if _, ok := bg.next(true, 0.5); ok {
		t.Fatal("a retry past MaxRetries")
	}
	short := newBudget(Backoff{Base: time.Hour, Max: time.Hour, MaxWait: time.Second}.withDefaults())
	if _, ok := short.next(false, 0.5); ok {
		t.Fatal("a wait past MaxWait was taken")
	}
}
