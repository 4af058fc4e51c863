package targets

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// KIP-345's claim for the classic protocol, measured (issue 25's second
// table): four consumers of one classic group, three of them restarted
// one after another (the process closes, a new one joins in its place a
// round later), static members (one instance id each) against dynamic
// ones, on the model and on impl, no faults. A restart of a static member
// in a Stable group is no rebalance and moves nothing (A6.2); a dynamic
// member's leaves and joins cost a rebalance each and move partitions.
const (
	kip345Slots    = 4
	kip345Restarts = 3
	kip345First    = 20 // the round of the first restart; the next ones every kip345Gap rounds
	kip345Gap      = 20
)

// kip345Plan is the scenario's plan: slot i's first process is c<i>, its
// restarted one c<4+i>.
func kip345Plan(static bool) plan.Plan {
	p := plan.Plan{Seed: 345, Topics: []plan.Topic{{Name: "alpha", Partitions: 6}, {Name: "beta", Partitions: 3}, {Name: "gamma", Partitions: 2}},
		SessionTimeoutMs: 6000, HeartbeatIntervalMs: 1000, Rounds: kip345First + kip345Restarts*kip345Gap, RoundMs: 500, RequestTimeout: 3, DescribeEvery: 4}
	client := func(name string, slot int, actions ...plan.Action) plan.ClientPlan {
		c := plan.ClientPlan{Name: name, Group: "g0", HeartbeatVersion: 1, Topics: []string{"alpha", "beta", "gamma"}, Seed: uint64(slot + 1), Actions: actions,
			Classic: &plan.ClassicClient{JoinGroupMaxVersion: 9, SessionTimeoutMs: plan.ClassicMinSessionTimeoutMs, RebalanceTimeoutMs: 8000, RequestTimeoutMs: 4000}}
		if static {
			c.InstanceID = fmt.Sprintf("inst-%d", slot)
		}
		return c
	}
	for i := 0; i < kip345Slots; i++ {
		actions := []plan.Action{{Round: 0, Kind: plan.Join}}
		if i < kip345Restarts {
			actions = append(actions, plan.Action{Round: restartRound(i), Kind: plan.Close})
		}
		p.Clients = append(p.Clients, client(fmt.Sprintf("c%d", i), i, actions...))
	}
	for i := 0; i < kip345Restarts; i++ {
		p.Clients = append(p.Clients, client(fmt.Sprintf("c%d", kip345Slots+i), i, plan.Action{Round: restartRound(i) + 1, Kind: plan.Join}))
	}
	return p
}

func restartRound(i int) int { return kip345First + i*kip345Gap }

// kip345Measure is what restarts cost in a history of kip345Plan:
// rebalances (generations the group went through) and partitions that
// changed slot, both per restart.
type kip345Measure struct {
	rebalances, moved float64
}

// measureKIP345 reads h: the group's generation and each slot's
// assignment (its last SyncGroup NONE) just before each restart and at
// the end.
func measureKIP345(h history.History, roundMs int64) kip345Measure {
	slot := func(name string) int {
		var n int
		fmt.Sscanf(name, "c%d", &n)
		return n % kip345Slots
	}
	at := func(t int64) (gen int32, owner map[rules.TopicPartition]int) {
		owner = map[rules.TopicPartition]int{}
		last := map[int][]rules.TopicPartition{}
		for _, op := range h {
			if op.Return == history.Never || op.At >= t {
				continue
			}
			switch r := op.Response.(type) {
			case *codec.JoinGroupResponse:
				if r.ErrorCode == codec.None {
					gen = max(gen, r.GenerationId)
				}
			case *codec.SyncGroupResponse:
				if r.ErrorCode == codec.None {
					last[slot(op.Name)] = rules.DecodeAssignment(r.Assignment)
				}
			}
		}
		for s, tps := range last {
			for _, tp := range tps {
				owner[tp] = s
			}
		}
		return gen, owner
	}
	var points []int64
	for i := 0; i < kip345Restarts; i++ {
		points = append(points, int64(restartRound(i))*roundMs)
	}
	points = append(points, int64(kip345First+kip345Restarts*kip345Gap)*roundMs+60000) // after the run's quiescence
	var m kip345Measure
	g0, o0 := at(points[0])
	for _, t := range points[1:] {
		g1, o1 := at(t)
		m.rebalances += float64(g1 - g0)
		for tp, s := range o1 {
			if prev, ok := o0[tp]; ok && prev != s {
				m.moved++
			}
		}
		g0, o0 = g1, o1
	}
	m.rebalances /= kip345Restarts
	m.moved /= kip345Restarts
	return m
}

// TestKIP345RestartTable measures the table and holds the claim: static
// restarts cost no rebalance and move nothing; dynamic ones cost at least
// one rebalance each. `go test -run TestKIP345RestartTable -v
// ./internal/targets` prints it (README.md, docs/findings.md).
func TestKIP345RestartTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| members | target | rebalances per restart | partitions moved per restart |\n|---|---|---|---|\n")
	for _, static := range []bool{true, false} {
		for _, name := range []string{"model", "impl"} {
			p := kip345Plan(static)
			target, err := New(name, p, "")
			if err != nil {
				t.Fatal(err)
			}
			res, err := driver.Run(target, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Violations) > 0 || len(res.HarnessErrors) > 0 {
				t.Fatalf("static %v on %s: violations %v, harness errors %v", static, name, res.Violations, res.HarnessErrors)
			}
			for i := 0; i < kip345Restarts; i++ {
				proc := fmt.Sprintf("c%d", kip345Slots+i)
				if !slices.ContainsFunc(res.History, func(op history.Op) bool {
					r, ok := op.Response.(*codec.SyncGroupResponse)
					return ok && op.Name == proc && r.ErrorCode == codec.None
				}) {
					t.Fatalf("static %v on %s: the restarted process %s never synced", static, name, proc)
				}
			}
			m := measureKIP345(res.History, p.RoundMs)
			kind := "dynamic"
			if static {
				kind = "static (KIP-345)"
			}
			fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f |\n", kind, name, m.rebalances, m.moved)
			switch {
			case static && (m.rebalances != 0 || m.moved != 0):
				t.Errorf("static restarts on %s: %.2f rebalances and %.2f partitions moved per restart, want none", name, m.rebalances, m.moved)
			case !static && m.rebalances < 1:
				t.Errorf("dynamic restarts on %s: %.2f rebalances per restart, want at least one", name, m.rebalances)
			}
		}
	}
	t.Logf("KIP-345 across restarts (%d members, %d restarts, no faults):\n%s", kip345Slots, kip345Restarts, b.String())
}
