package ghostchecktest_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/ghostchecktest"
)

// These tests are docs/library.md's "Plug in your own coordinator": three
// coordinators ghostcheck did not write, held to its checks from a go test
// in one call each. Each is built on the reference coordinator, as a
// stand-in for yours, behind a plain three-method Target: it does not
// declare itself model-exact, so it is checked at the observable level,
// and it cannot restart, so the plans' coordinator restarts are left out.

// correctCoordinator keeps every promise.
type correctCoordinator struct{ inner ghostchecktest.Target }

func (c *correctCoordinator) Handle(conn ghostchecktest.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	return c.inner.Handle(conn, h, req)
}
func (c *correctCoordinator) Disconnect(id uint64)   { c.inner.Disconnect(id) }
func (c *correctCoordinator) Advance(ms int64) error { return c.inner.Advance(ms) }

// rewordedCoordinator keeps every promise, in words of its own: its error
// messages differ from the model's, as every real broker's do.
type rewordedCoordinator struct{ correctCoordinator }

func (c *rewordedCoordinator) Handle(conn ghostchecktest.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
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

func (c *leakyCoordinator) Handle(conn ghostchecktest.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if r, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && r.MemberEpoch == -1 && r.MemberId != "" {
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(r.MemberId), MemberEpoch: -1}, nil
	}
	return c.inner.Handle(conn, h, req)
}

// Each coordinator is built fresh for a plan, configured as the plan says
// (its topics, session timeout and heartbeat interval: cfg).
func newCorrect(cfg ghostchecktest.Config) ghostchecktest.Target {
	return &correctCoordinator{ghostchecktest.Reference(cfg)}
}

func newReworded(cfg ghostchecktest.Config) ghostchecktest.Target {
	return &rewordedCoordinator{correctCoordinator{ghostchecktest.Reference(cfg)}}
}

func newLeaky(cfg ghostchecktest.Config) ghostchecktest.Target {
	return &leakyCoordinator{correctCoordinator{ghostchecktest.Reference(cfg)}}
}

// A correct coordinator passes 100 plans.
func TestCorrectCoordinatorPasses(t *testing.T) {
	out := ghostchecktest.Run(t, newCorrect, ghostchecktest.Options{})
	if out.Failure != nil || out.Plans != 100 || out.Level != ghostchecktest.LevelObservable {
		t.Fatalf("%d plans at the %s level, failure %v", out.Plans, out.Level, out.Failure)
	}
	if len(out.Notes) == 0 || !strings.Contains(out.Notes[0], "restarts dropped from 82 of 100 plans: the target cannot restart") {
		t.Errorf("the notes do not say the restarts were left out: %q", out.Notes)
	}
}

// A correct coordinator with error messages of its own raises no false
// alarm at the observable level (GHOSTCHECK_SEEDS=1000 for docs/library.md's
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
	exact := ghostchecktest.Run(rec, newReworded, ghostchecktest.Options{Seeds: 5, Level: ghostchecktest.LevelExact, Shrink: -1})
	if exact.Failure == nil || exact.Failure.Rule != "Linearizability" {
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
	if f == nil || f.Rule != "NoGhosts" || f.Verdict != "Illegal" || len(rec.errors) != 1 {
		t.Fatalf("the leak was not caught as NoGhosts: %+v, %q", f, rec.errors)
	}
	msg := rec.errors[0]
	want := "go test github.com/ghostcheck/ghostcheck/ghostchecktest -run '^TestLeakyCoordinatorIsCaught$' -ghostcheck.replay="
	for _, w := range []string{"Illegal NoGhosts (observable level)", "rule:     NoGhosts — ", "shrunk:   ", "note:     plan's", "replay:   " + want, f.Explanation} {
		if !strings.Contains(msg, w) {
			t.Errorf("the failure lacks %q:\n%s", w, msg)
		}
	}
	for _, path := range []string{f.History, f.Page, f.Timeline} {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("artifact: %v", err)
		}
	}
	t.Logf("caught as docs/library.md shows it:\n%s", msg)
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

// Run holds the coordinators a NewTarget builds (one per plan, configured
// by the plan's Config) to ghostcheck's checks, from a test of your own:
// here the reference coordinator, held at the exact level since it
// declares itself model-exact. A failure fails the test with the rule
// broken and the command that replays it.
func ExampleRun() {
	TestMyCoordinator := func(t *testing.T) {
		out := ghostchecktest.Run(t, ghostchecktest.Reference, ghostchecktest.Options{Seeds: 20})
		t.Logf("%d plans checked at the %s level", out.Plans, out.Level)
	}
	_ = TestMyCoordinator
}

// Funcs makes a Target of plain functions: here around the reference
// coordinator, as a wrapper of yours would be. HandleFunc is the only one
// a Target needs; without RestartFunc it cannot restart, and without
// Exact it is checked at the observable level.
func ExampleFuncs() {
	inner := ghostchecktest.Reference(config)
	target := ghostchecktest.Funcs{
		HandleFunc: func(conn ghostchecktest.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
			if h.RequestApiKey == codec.PushTelemetry {
				return nil, fmt.Errorf("mycoord: connection reset: %w", ghostchecktest.ErrNoResponse)
			}
			return inner.Handle(conn, h, req)
		},
		DisconnectFunc: inner.Disconnect,
		AdvanceFunc:    inner.Advance,
	}
	resp, _ := target.Handle(conn, header(codec.ConsumerGroupHeartbeat, 1), join("member-a"))
	fmt.Println(resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode)
	_, err := target.Handle(conn, header(codec.PushTelemetry, 1), &codec.PushTelemetryRequest{})
	fmt.Println(errors.Is(err, ghostchecktest.ErrNoResponse))
	// Output:
	// NONE
	// true
}

// Reference is ghostcheck's reference coordinator as a Target: the one to
// wrap in a test of your own, or to hand Run (Run(t, Reference, ...)).
// Configured by hand here, it answers a KIP-1082 join with the member id
// the client made, and assigns it the topic's partitions.
func ExampleReference() {
	target := ghostchecktest.Reference(config)
	resp, err := target.Handle(conn, header(codec.ConsumerGroupHeartbeat, 1), join("member-a"))
	if err != nil {
		panic(err)
	}
	hb := resp.(*codec.ConsumerGroupHeartbeatResponse)
	fmt.Println(hb.ErrorCode, hb.MemberId.Value, hb.MemberEpoch, len(hb.Assignment.TopicPartitions[0].Partitions))
	// Output:
	// NONE member-a 1 3
}

// A Snapshotter shows the coordinator's whole state: the invariants are
// then checked on it after every round (pending revocations included),
// and what ConsumerGroupDescribe answers must agree with it. The
// reference coordinator is one.
func ExampleSnapshotter() {
	target := ghostchecktest.Reference(config)
	if _, err := target.Handle(conn, header(codec.ConsumerGroupHeartbeat, 1), join("member-a")); err != nil {
		panic(err)
	}
	for _, g := range target.(ghostchecktest.Snapshotter).Snapshot() {
		for _, m := range g.Members {
			fmt.Println(g.GroupID, g.Epoch, m.MemberID, m.Epoch, len(m.Assigned))
		}
	}
	// Output:
	// example 1 member-a 1 3
}

// config, conn, header and join are the examples' coordinator
// configuration, connection and requests.
var (
	config = ghostchecktest.Config{Topics: []ghostchecktest.Topic{{Name: "alpha", Partitions: 3}}, SessionTimeoutMs: 6000, HeartbeatIntervalMs: 1000}
	conn   = ghostchecktest.Conn{ID: 1, Host: "/10.0.0.1"}
)

func header(key codec.APIKey, version int16) *codec.RequestHeader {
	return &codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: 1, ClientId: codec.Str("example")}
}

func join(member string) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: "example", MemberId: member, MemberEpoch: 0, RebalanceTimeoutMs: 30000,
		SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
}
