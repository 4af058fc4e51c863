package check_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// opaque is a coordinator that is not ours, as the driver meets one: it
// answers and holds requests, restarts, and shows nothing else (no
// snapshot, not model-exact), so the invariants are judged on its
// DescribeGroups answers and the answers its members were told.
type opaque struct{ t driver.Target }

func (o opaque) Handle(c driver.Conn, h *codec.RequestHeader, r codec.Message) (codec.Message, error) {
	return o.t.Handle(c, h, r)
}
func (o opaque) Disconnect(id uint64)       { o.t.Disconnect(id) }
func (o opaque) Advance(now int64) error    { return o.t.Advance(now) }
func (o opaque) Restart() error             { return o.t.(driver.Restarter).Restart() }
func (o opaque) Released() []driver.Release { return o.t.(driver.Parker).Released() }

// classicOpaqueRun runs seed's plan with proto and opts changed by tweak
// against target name (with mutant) seen as opaque.
func classicOpaqueRun(t *testing.T, seed uint64, proto plan.Protocol, name, mutant string) *driver.Result {
	t.Helper()
	o := plan.DefaultOptions()
	o.Protocol, o.JoinGroupVersion, o.HeartbeatVersion = proto, 9, 1
	p := plan.New(seed, o)
	target, err := targets.New(name, p, mutant)
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run(opaque{target}, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The model and impl, judged as coordinators that are not ours, pass the
// observable level on classic and mixed plans: every answer the protocol
// allows, every invariant held on what DescribeGroups showed.
func TestObservableClassicNoFalseAlarms(t *testing.T) {
	for _, name := range []string{"model", "impl"} {
		for _, proto := range []plan.Protocol{plan.ProtocolClassic, plan.ProtocolMixed} {
			for seed := uint64(1); seed <= 40; seed++ {
				res := classicOpaqueRun(t, seed, proto, name, "")
				if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict != history.Ok {
					t.Fatalf("%s %s seed %d: %s %s: %s", name, proto, seed, rep.Verdict, rep.Rule, rep.Detail)
				}
			}
		}
	}
}

// Planted bugs of impl's classic groups that a client can see are caught
// at the observable level alone: a KIP-394 gate off by one (a v4 join made
// a member at once), a member never told it must rejoin, the admin's
// removal by instance id ignored.
func TestObservableClassicCatchesMutants(t *testing.T) {
	for _, m := range []string{"member-id-required-from-v5", "classic-error-refreshes-session", "replacement-keeps-old-instance"} {
		caught := false
		for seed := uint64(1); seed <= 200 && !caught; seed++ {
			res := classicOpaqueRun(t, seed, plan.ProtocolClassic, "impl", m)
			if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict == history.Illegal {
				t.Logf("%s: seed %d: %s: %s", m, seed, rep.Rule, rep.Detail)
				caught = true
			}
		}
		if !caught {
			t.Errorf("mutant %s not caught at the observable level in 200 classic histories", m)
		}
	}
}

// KIP-394's promise is held on the answers alone: with the invariants the
// driver found set aside, a broker that makes a dynamic v4 member at once
// (the gate off by one) breaks ObservableResponse.
func TestObservableClassicKIP394OnTheAnswers(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		res := classicOpaqueRun(t, seed, plan.ProtocolClassic, "impl", "member-id-required-from-v5")
		res.Violations = nil
		if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict == history.Illegal {
			if rep.Rule != "ObservableResponse" || !strings.Contains(rep.Detail, "KIP-394") {
				t.Fatalf("seed %d: %s: %s", seed, rep.Rule, rep.Detail)
			}
			return
		}
	}
	t.Fatal("a v4 join made a member at once, unnoticed on the answers in 200 classic histories")
}

// The migration plans (upgrade and rollback, docs/PROTOCOL.md A7) raise
// nothing against the model and impl seen as coordinators that are not
// ours: neither the observer's rules on the answers (a classic member of a
// consumer group is answered with no leader at its member epoch, A7.1,
// which only those plans may see) nor the driver's invariants, which
// follow each group's kind by what the answers told (driver/toldkinds.go)
// and so take no classic member of a consumer group for a classic
// group's. Before they did, 19 upgrade and 77 rollback histories of seeds
// 1-200 drew a false MonotonicEpochs or NoGhosts.
func TestObservableMigrationNoFalseAlarms(t *testing.T) {
	for _, name := range []string{"model", "impl"} {
		for _, proto := range []plan.Protocol{plan.ProtocolUpgrade, plan.ProtocolRollback} {
			leaderless := 0
			for seed := uint64(1); seed <= 200; seed++ {
				res := classicOpaqueRun(t, seed, proto, name, "")
				if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict != history.Ok {
					t.Fatalf("%s %s seed %d: %s %s: %s", name, proto, seed, rep.Verdict, rep.Rule, rep.Detail)
				}
				for _, op := range res.History {
					if r, ok := op.Response.(*codec.JoinGroupResponse); ok && r.ErrorCode == codec.None && r.Leader == "" {
						leaderless++
					}
				}
			}
			if leaderless == 0 {
				t.Errorf("%s %s: no JoinGroup of a classic member of a consumer group answered in 200 seeds: the test checked nothing of A7.1", name, proto)
			}
		}
	}
}
