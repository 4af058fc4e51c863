package wire

import (
	"context"
	"time"
)

// Backoff is how a Cluster waits between the tries of a routed request,
// and when it stops. The defaults are Kafka's Java client's (KIP-580:
// retry.backoff.ms 100, retry.backoff.max.ms 1000, doubling, ±20 %
// jitter); the budget is ghostcheck's, so that a broker that keeps
// answering NOT_COORDINATOR cannot hold a check forever.
type Backoff struct {
	// Base is the first wait (0: 100 ms).
	Base time.Duration
	// Max caps a wait (0: 1 s).
	Max time.Duration
	// Jitter spreads each wait by ±Jitter of itself (0: 0.2; negative:
	// none).
	Jitter float64
	// MaxRetries caps the retries of one call (0: 20).
	MaxRetries int
	// MaxWait caps the time one call spends retrying, waits and tries
	// together (0: 30 s).
	MaxWait time.Duration
}

// Backoff defaults.
const (
	DefaultBackoffBase = 100 * time.Millisecond
	DefaultBackoffMax  = time.Second
	DefaultJitter      = 0.2
	DefaultMaxRetries  = 20
	DefaultMaxWait     = 30 * time.Second
)

func (b Backoff) withDefaults() Backoff {
	if b.Base <= 0 {
		b.Base = DefaultBackoffBase
	}
	if b.Max <= 0 {
		b.Max = DefaultBackoffMax
	}
	b.Base = min(b.Base, b.Max)
	switch {
	case b.Jitter == 0:
		b.Jitter = DefaultJitter
	case b.Jitter < 0:
		b.Jitter = 0
	case b.Jitter > 1:
		b.Jitter = 1
	}
	if b.MaxRetries <= 0 {
		b.MaxRetries = DefaultMaxRetries
	}
	if b.MaxWait <= 0 {
		b.MaxWait = DefaultMaxWait
	}
	return b
}

// wait is the n-th backoff (n from 0): Base doubled n times, capped at
// Max, spread by the jitter from u (uniform in [0, 1)), capped at Max
// again.
func (b Backoff) wait(n int, u float64) time.Duration {
	d := b.Base
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	d = time.Duration(float64(d) * (1 - b.Jitter + 2*b.Jitter*u))
	return min(d, b.Max)
}

// budget is one call's retries: how many, and how long since it began.
type budget struct {
	b       Backoff
	start   time.Time
	retries int
	waits   int // backoffs taken (the first retry after a move takes none)
	moved   bool
}

func newBudget(b Backoff) *budget { return &budget{b: b, start: time.Now()} }

// next decides the wait before the next retry, or false when the budget
// is spent. A retry right after the coordinator moved (NOT_COORDINATOR,
// COORDINATOR_NOT_AVAILABLE) goes at once, as Java's consumer skips its
// backoff there once the coordinator is found again; a second such retry
// in a row, and every other one, waits, so a broker that keeps answering
// so is not hammered.
func (bg *budget) next(moved bool, u float64) (time.Duration, bool) {
	if bg.retries >= bg.b.MaxRetries {
		return 0, false
	}
	var d time.Duration
	if !moved || bg.moved {
		d = bg.b.wait(bg.waits, u)
		bg.waits++
	}
	bg.moved = moved
	if time.Since(bg.start)+d > bg.b.MaxWait {
		return 0, false
	}
	bg.retries++
	return d, true
}

func (bg *budget) elapsed() time.Duration { return time.Since(bg.start) }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
