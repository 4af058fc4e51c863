package driver_test

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// leakyCoordinator is a coordinator ghostcheck did not write: it wraps
// another one and, like a broker with a bug, acknowledges a leave (epoch -1)
// without removing the member.
type leakyCoordinator struct {
	inner driver.Target
}

func (l *leakyCoordinator) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if r, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && r.MemberEpoch == -1 && r.MemberId != "" {
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(r.MemberId), MemberEpoch: -1}, nil
	}
	return l.inner.Handle(conn, h, req)
}

func (l *leakyCoordinator) Disconnect(id uint64) { l.inner.Disconnect(id) }

func (l *leakyCoordinator) Advance(ms int64) error { return l.inner.Advance(ms) }

// Plug your own coordinator into ghostcheck by implementing Target (three
// methods), then run plans against it and check the result. Here the
// coordinator forgets members that leave: ghostcheck reports the member left
// behind as a ghost. It does not declare itself model-exact
// (driver.ModelExacter), so it is held to what a client can see, not to
// the model's bytes; it cannot restart (driver.Restarter), so the plan's
// coordinator restarts are left out, and the report says so.
// ghostchecktest.Run does all this, over many seeds, from a go test.
func Example() {
	p := plan.New(1, plan.DefaultOptions())
	target := &leakyCoordinator{inner: targets.NewModelTarget(p.ModelConfig())}

	res, err := driver.Run(target, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := check.Check(res, check.Options{})
	fmt.Println("level:", rep.Level)
	fmt.Println("verdict:", rep.Verdict)
	fmt.Println("rule:", rep.Rule)
	fmt.Println("note:", rep.Notes[0])
	// Output:
	// level: observable
	// verdict: Illegal
	// rule: NoGhosts
	// note: plan's 2 restarts dropped: the target cannot restart (it is no Restarter)
}
