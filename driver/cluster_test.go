package driver_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// movingModel is the reference coordinator as a cluster whose coordinator
// moves: a move is the model's restart (the next coordinator loads every
// group from the log, its sessions afresh). The restart also forgets the
// connections, which the driver's processes keep across a move (a
// cluster's client opens one to the new coordinator, whose first request
// carries its ClientId again: tcptarget does): so the model is held to
// the observable level here, which does not judge ClientIds.
type movingModel struct {
	*targets.ModelTarget
	moves int
}

func (m *movingModel) CanPlay(k plan.ClusterFaultKind) bool { return k == plan.CoordinatorMove }

func (m *movingModel) PlayClusterFault(f plan.ClusterFault, _ uint64) error {
	m.moves++
	m.Restart()
	return nil
}

// A plan's coordinator moves are played between rounds and recorded as
// restarts naming their fault; the reference coordinator carried across
// them is Ok at the observable level. A target that plays none runs the
// plan without them, and says so.
func TestClusterFaultsPlayedAndRecorded(t *testing.T) {
	o := plan.DefaultOptions()
	o.Restarts = false
	pl := plan.New(3, o)
	pl.ClusterFaults = []plan.ClusterFault{{Round: 10, Kind: plan.CoordinatorMove}, {Round: 25, Kind: plan.CoordinatorMove}}
	m := &movingModel{ModelTarget: targets.NewModelTarget(pl.ModelConfig())}
	res, err := driver.Run(driver.WithSnapshot(m, m.Snapshot), pl)
	if err != nil {
		t.Fatal(err)
	}
	var moved []history.Op
	for _, op := range res.History {
		if op.Restart {
			moved = append(moved, op)
		}
	}
	if m.moves != 2 || res.ClusterFaults[plan.CoordinatorMove] != 2 || len(moved) != 2 || moved[0].Fault != string(plan.CoordinatorMove) || moved[1].At != 25*pl.RoundMs {
		t.Fatalf("%d moves played, %v counted, ops %+v", m.moves, res.ClusterFaults, moved)
	}
	if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict != history.Ok {
		t.Errorf("%s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
	inner := targets.NewModelTarget(pl.ModelConfig())
	res, err = driver.Run(driver.Funcs{HandleFunc: inner.Handle, DisconnectFunc: inner.Disconnect, AdvanceFunc: inner.Advance}, pl)
	if err != nil {
		t.Fatal(err)
	}
	if res.DroppedClusterFaults != 2 || len(res.Plan.ClusterFaults) != 0 || !strings.Contains(strings.Join(res.Notes(), " "), "2 cluster faults dropped") {
		t.Fatalf("a target that plays none: dropped %d, notes %q", res.DroppedClusterFaults, res.Notes())
	}
}
