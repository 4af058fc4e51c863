package ghostchecktest_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/ghostchecktest"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// These tests are the README's "Plug in your own coordinator": three
// coordinators ghostcheck did not write, held to its checks from a go test
// in one call each. Each is built on the reference model, as a stand-in for
// yours, behind a plain three-method linearize.Target: it does not declare
// itself model-exact, so it is checked at the observable level, and it
// cannot restart, so the plans' coordinator restarts are left out.

// correctCoordinator keeps every promise.
type correctCoordinator struct{ inner driver.Target }

func (c *correctCoordinator) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	return c.inner.Handle(conn, h, req)
}
func (c *correctCoordinator) Disconnect(id uint64)   { c.inner.Disconnect(id) }
func (c *correctCoordinator) Advance(ms int64) error { return c.inner.Advance(ms) }

// rewordedCoordinator keeps every promise, in words of its own: its error
// messages differ from the model's, as every real broker's do.
type rewordedCoordinator struct{ correctCoordinator }

func (c *rewordedCoordinator) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	resp, err := c.inner.Handle(conn, h, req)
	switch r := resp.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		if r.ErrorMessage.Valid {
			r.ErrorMessage = codec.Str("mycoord: " + strings.ToUpper(r.ErrorCode.String()))
		}
	case *codec.ConsumerGroupDescribeResponse:
		for i := range r.Groups {
			if r.Groups[i].ErrorMessage.Valid {
				r.Groups[i].ErrorMessage = codec.Str("no such group here")
			}
		}
	}
	return resp, err
}

// leakyCoordinator has a bug: it acknowledges a leave (epoch -1) without
// removing the member.
type leakyCoordinator struct{ correctCoordinator }

func (c *leakyCoordinator) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if r, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && r.MemberEpoch == -1 && r.MemberId != "" {
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(r.MemberId), MemberEpoch: -1}, nil
	}
	return c.inner.Handle(conn, h, req)
}

// Each coordinator is built fresh for a plan, with the plan's topics,
// session timeout and heartbeat interval (plan.ModelConfig()).
func newCorrect(plan plan.Plan) driver.Target {
	return &correctCoordinator{targets.NewModelTarget(plan.ModelConfig())}
}

func newReworded(plan plan.Plan) driver.Target {
	return &rewordedCoordinator{correctCoordinator{targets.NewModelTarget(plan.ModelConfig())}}
}

func newLeaky(plan plan.Plan) driver.Target {
	return &leakyCoordinator{correctCoordinator{targets.NewModelTarget(plan.ModelConfig())}}
}

// A correct coordinator passes 100 plans.
func TestCorrectCoordinatorPasses(t *testing.T) {
	out := ghostchecktest.Run(t, newCorrect, ghostchecktest.Options{})
	if out.Failure != nil || out.Plans != 100 || out.Level != check.LevelObservable {
		t.Fatalf("%d plans at the %s level, failure %v", out.Plans, out.Level, out.Failure)
	}
	if len(out.Notes) == 0 || !strings.Contains(out.Notes[0], "restarts dropped from 82 of 100 plans: the target cannot restart") {
		t.Errorf("the notes do not say the restarts were left out: %q", out.Notes)
	}
}

// A correct coordinator with error messages of its own raises no false
// alarm at the observable level (GHOSTCHECK_SEEDS=1000 for the README's
// count), where the exact level, which holds it to the model's bytes,
// condemns it at once.
func TestRewordedErrorsAreNoFalseAlarm(t *testing.T) {
	seeds := 200
	if n, err := strconv.Atoi(os.Getenv("GHOSTCHECK_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	out := ghostchecktest.Run(t, newReworded, ghostchecktest.Options{Seeds: seeds})
	if out.Failure != nil || out.Plans != seeds {
		t.Fatalf("%d of %d plans, then a false alarm", out.Plans, seeds)
	}
	rec := &recorder{TB: t}
	exact := ghostchecktest.Run(rec, newReworded, ghostchecktest.Options{Seeds: 5, Level: check.LevelExact, Shrink: -1})
	if exact.Failure == nil || exact.Failure.Report.Rule != "Linearizability" {
		t.Fatalf("at the exact level the reworded messages should fail Linearizability: %+v", exact.Failure)
	}
}

// A coordinator that acknowledges leaves without removing the member is
// caught: its member outlives the process as a ghost (NoGhosts), and the
// failure says how to replay it from this package.
func TestLeakyCoordinatorIsCaught(t *testing.T) {
	rec := &recorder{TB: t}
	out := ghostchecktest.Run(rec, newLeaky, ghostchecktest.Options{Seeds: 20})
	f := out.Failure
	if f == nil || f.Report.Rule != "NoGhosts" || len(rec.errors) != 1 {
		t.Fatalf("the leak was not caught as NoGhosts: %+v, %q", f, rec.errors)
	}
	msg := rec.errors[0]
	want := "go test github.com/ghostcheck/ghostcheck/ghostchecktest -run '^TestLeakyCoordinatorIsCaught$' -ghostcheck.replay="
	for _, w := range []string{"Illegal NoGhosts (observable level)", "rule:     NoGhosts — ", "shrunk:   ", "note:     plan's", "replay:   " + want} {
		if !strings.Contains(msg, w) {
			t.Errorf("the failure lacks %q:\n%s", w, msg)
		}
	}
	for _, path := range []string{f.Artifacts.History, f.Artifacts.HTML} {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("artifact: %v", err)
		}
	}
	t.Logf("caught as the README shows it:\n%s", msg)
}

// recorder keeps a test's failures instead of failing it, so that a test
// can assert that ghostcheck fails a buggy coordinator.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
