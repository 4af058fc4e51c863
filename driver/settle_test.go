package driver_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// onRealTime is the model as the driver sees a broker over TCP (it
// reports MaxLagMs), so that quiesce settles classic groups in steps;
// from lingerFrom on (0: never) its DescribeGroups answers list a
// member in every classic group, as a broker that never lets one go
// (before, the answers are the model's: the prober picks members from
// them).
type onRealTime struct {
	*targets.ModelTarget
	lingerFrom, now int64
}

func (*onRealTime) MaxLagMs() int64 { return 0 }

func (t *onRealTime) Advance(now int64) error {
	t.now = now
	return t.ModelTarget.Advance(now)
}

func (t *onRealTime) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	resp, err := t.ModelTarget.Handle(conn, h, req)
	if d, ok := resp.(*codec.DescribeGroupsResponse); ok && t.lingerFrom > 0 && t.now >= t.lingerFrom {
		for i := range d.Groups {
			d.Groups[i].Members = append(d.Groups[i].Members, codec.DescribeGroupsMember{MemberId: "lingering"})
		}
	}
	return resp, err
}

// lastDescribeAt is when the run's last Describe reached the target: the
// end of its quiescence.
func lastDescribeAt(t *testing.T, h history.History) int64 {
	t.Helper()
	for i := len(h) - 1; i >= 0; i-- {
		switch h[i].Request.(type) {
		case *codec.DescribeGroupsRequest, *codec.ConsumerGroupDescribeRequest:
			return h[i].At
		}
	}
	t.Fatal("no Describe in the history")
	return 0
}

// On real time, quiescence ends once every group is described empty
// after the last client closed, instead of waiting out three rebalance
// timeouts (up to 30 s of a classic history's real time): the same plan
// against the model on simulated time waits the whole bound, and both
// runs end quiescent with no invariant broken. A broker whose
// DescribeGroups still lists a member is waited out to the whole bound.
func TestClassicQuiescenceEndsWhenGroupsEmpty(t *testing.T) {
	o := plan.DefaultOptions()
	o.Protocol, o.Restarts = plan.ProtocolClassic, false
	for seed := uint64(1); seed <= 3; seed++ {
		p := plan.New(seed, o)
		run := func(target driver.Target) *driver.Result {
			t.Helper()
			res, err := driver.Run(target, p)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Quiescent || len(res.Violations) > 0 || len(res.HarnessErrors) > 0 {
				t.Fatalf("seed %d: quiescent %v, violations %v, harness %v", seed, res.Quiescent, res.Violations, res.HarnessErrors)
			}
			return res
		}
		simulated := lastDescribeAt(t, run(targets.NewModelTarget(p.ModelConfig())).History)
		real := lastDescribeAt(t, run(&onRealTime{ModelTarget: targets.NewModelTarget(p.ModelConfig())}).History)
		// From the closing round on, when every client has closed.
		closing := int64(p.Rounds) * p.RoundMs
		lingering := lastDescribeAt(t, run(&onRealTime{ModelTarget: targets.NewModelTarget(p.ModelConfig()), lingerFrom: closing}).History)
		t.Logf("seed %d: quiescence ended at %d ms on simulated time, %d ms on real time, %d ms with a lingering member", seed, simulated, real, lingering)
		// A Describe's time is its sub-round's (Plan.SubRoundMs): the
		// ends compare within a few rounds.
		slack := 5 * p.RoundMs
		if real >= simulated-slack {
			t.Errorf("seed %d: on real time quiescence ended at %d ms, not before the bound (%d ms)", seed, real, simulated)
		}
		if lingering < simulated-slack {
			t.Errorf("seed %d: with a member listed for ever quiescence ended at %d ms, want the whole bound (%d ms)", seed, lingering, simulated)
		}
	}
}
