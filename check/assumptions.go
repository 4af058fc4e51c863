package check

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/history"
)

// assumptions checks what the checker itself relies on, and returns
// each broken assumption: every operation's call precedes its return; each
// client's calls are in order; operation ids are their positions.
func assumptions(h history.History) []string {
	var errs []string
	lastCall := map[int]int64{}
	for i, op := range h {
		if op.ID != i {
			errs = append(errs, fmt.Sprintf("op at position %d has id %d", i, op.ID))
		}
		if op.Return != history.Never && op.Call >= op.Return {
			errs = append(errs, fmt.Sprintf("op %d returns (%d) before it is called (%d)", op.ID, op.Return, op.Call))
		}
		if op.Return != history.Never && op.Response == nil && !op.Refused && !op.Restart {
			errs = append(errs, fmt.Sprintf("op %d has a return time but no response", op.ID))
		}
		if op.Request == nil && !op.Restart {
			errs = append(errs, fmt.Sprintf("op %d has no request", op.ID))
		}
		if op.Restart && op.Return == history.Never {
			errs = append(errs, fmt.Sprintf("op %d, a restart, has no return time", op.ID))
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
