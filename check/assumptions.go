package check

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/history"
)

// assumptions checks what the checker itself relies on, and returns
// each broken assumption: every operation's call precedes its return; each
// client's calls are in order; operation ids are their positions; a
// parked operation is handled within its interval and answered only by
// the one operation that released it (releaseAssumptions).
func assumptions(h history.History) []string {
	var errs []string
	lastCall := map[int]int64{}
	released := map[int]int{}
	for i := range h {
		op := &h[i] // read in place: an op is some forty words
		if op.ID != i {
			errs = append(errs, fmt.Sprintf("op at position %d has id %d", i, op.ID))
		}
		if op.Return != history.Never && op.Call >= op.Return {
			errs = append(errs, fmt.Sprintf("op %d returns (%d) before it is called (%d)", op.ID, op.Return, op.Call))
		}
		if op.Return != history.Never && op.Response == nil && !op.Refused && !op.Event() {
			errs = append(errs, fmt.Sprintf("op %d has a return time but no response", op.ID))
		}
		if op.Request == nil && !op.Event() {
			errs = append(errs, fmt.Sprintf("op %d has no request", op.ID))
		}
		if op.Event() && op.Return == history.Never {
			errs = append(errs, fmt.Sprintf("op %d, a coordinator event, has no return time", op.ID))
		}
		if op.Parked && (op.Handled <= op.Call || op.Return != history.Never && op.Return <= op.Handled) {
			errs = append(errs, fmt.Sprintf("op %d, parked, is handled at %d outside its call %d and return %d", op.ID, op.Handled, op.Call, op.Return))
		}
		if len(op.Releases) > 0 {
			errs = append(errs, releaseAssumptions(h, i, released)...)
		}
		if c, ok := lastCall[op.Client]; ok && op.Call < c && !isRedelivery(h, i) {
			// Deliveries may overtake each other across a client's
			// connections, but not its sends on one connection.
			if sameConnEarlier(h, i) {
				errs = append(errs, fmt.Sprintf("op %d of %s was called before an earlier op on the same connection", op.ID, op.Name))
			}
		}
		if op.Call > lastCall[op.Client] {
			lastCall[op.Client] = op.Call
		}
	}
	for i := range h {
		if h[i].Parked && h[i].Return != history.Never && released[i] == 0 {
			errs = append(errs, fmt.Sprintf("op %d, parked, has a return time but nothing released it", h[i].ID))
		}
	}
	return errs
}

// releaseAssumptions checks op i's releases: each names an earlier parked
// op, released once, that returns when the releaser was handled (or never,
// dropped, with no response); and a parked op with a return time was
// released by someone. released maps each op released so far to its
// releaser.
func releaseAssumptions(h history.History, i int, released map[int]int) []string {
	var errs []string
	op := &h[i]
	for _, id := range op.Releases {
		switch {
		case id < 0 || id > i || !h[id].Parked || id == i && op.Response != nil:
			// Itself only when dropped in its own handling.
			errs = append(errs, fmt.Sprintf("op %d releases op %d, which is not an earlier parked op", op.ID, id))
			continue
		case released[id] != 0:
			errs = append(errs, fmt.Sprintf("op %d releases op %d, which op %d released", op.ID, id, released[id]-1))
		case h[id].Response != nil && h[id].Return != op.HandledAt():
			errs = append(errs, fmt.Sprintf("op %d, released by op %d, returns at %d, not at its release %d", id, op.ID, h[id].Return, op.HandledAt()))
		case h[id].Response == nil && h[id].Return != history.Never:
			errs = append(errs, fmt.Sprintf("op %d, dropped by op %d, has a return time", id, op.ID))
		}
		released[id] = op.ID + 1
	}
	return errs
}

func isRedelivery(h history.History, i int) bool {
	for j := 0; j < i; j++ {
		if h[j].Call == h[i].Call && h[j].Client == h[i].Client {
			return true
		}
	}
	return false
}

func sameConnEarlier(h history.History, i int) bool {
	for j := 0; j < i; j++ {
		if h[j].Conn.ID == h[i].Conn.ID && h[j].Call > h[i].Call {
			return true
		}
	}
	return false
}
