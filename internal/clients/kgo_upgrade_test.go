package clients_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/upgradetest"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// A real rolling upgrade and its rollback (internal/upgradetest): three
// kgo v1.22.3 processes in one group consume alpha on the classic
// protocol, then each in turn is stopped and replaced by a process on the
// consumer protocol (KIP-848, kgo.ServerSideBalancer), then each in turn
// back, against ghostcheck's own coordinator with mixed groups, kfake
// answering the rest, every request through the proxy. Each process is
// then held to the client rules of both protocols: a violation must be a
// known finding.

// newUpgradeWorld starts kfake (one broker, ten records in alpha, the
// group made with offset 0 committed) and the upgrade's world in front
// of it, with mutants planted in the coordinator.
func newUpgradeWorld(t *testing.T, mutants impl.Mutants) *upgradetest.World {
	t.Helper()
	cluster := kfaketest.Start(t, kfake.SeedTopics(6, "alpha"), kfake.NumBrokers(1))
	rest := cluster.ListenAddrs()[0]
	produce(t, cluster.ListenAddrs())
	group := "g-" + strings.ReplaceAll(t.Name(), "/", "-")
	return upgradetest.Start(t, rest, group, "alpha", kfaketest.SeedGroup(t, rest, group, "alpha"), 6, mutants)
}

// kgoUpgradeProcess is one kgo consumer process of the fleet, and what its
// rebalance callbacks say it owns.
type kgoUpgradeProcess struct {
	*kgoProcess
	clientID string
	consumer bool // on the consumer protocol (KIP-848)
	own      *owned
}

// owned is what a process's rebalance callbacks say it owns.
type owned struct {
	mu sync.Mutex
	ps map[int32]bool
}

func (o *owned) update(ps []int32, add bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range ps {
		if add {
			o.ps[n] = true
		} else {
			delete(o.ps, n)
		}
	}
}

// kgoUpgradeStarter starts processes through w's proxy: classic (kgo's
// default, cooperative-sticky), or on the consumer protocol (the same
// balancer, whose server side is the uniform assignor, and
// ServerSideBalancer). They commit nothing: kfake holds offset 0.
func kgoUpgradeStarter(t *testing.T, w *upgradetest.World) upgradetest.StartFunc {
	return func(clientID, instance string, consumer bool) upgradetest.Process {
		own := &owned{ps: map[int32]bool{}}
		opts := []kgo.Opt{kgo.SeedBrokers(w.Proxy.Addr()), kgo.ClientID(clientID), kgo.ConsumerGroup(w.Group), kgo.ConsumeTopics(w.Topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.DisableAutoCommit(),
			kgo.SessionTimeout(upgradetest.SessionTimeout), kgo.HeartbeatInterval(upgradetest.HeartbeatInterval), kgo.RebalanceTimeout(5 * time.Second),
			kgo.RequestTimeoutOverhead(2 * time.Second), kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond }),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { own.update(m[w.Topic], true) }),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { own.update(m[w.Topic], false) }),
			kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { own.update(m[w.Topic], false) })}
		if consumer {
			opts = append(opts, kgo.ServerSideBalancer())
		}
		if instance != "" {
			opts = append(opts, kgo.InstanceID(instance))
		}
		return &kgoUpgradeProcess{kgoProcess: pollKgo(t, opts...), clientID: clientID, consumer: consumer, own: own}
	}
}

func (p *kgoUpgradeProcess) ClientID() string { return p.clientID }
func (p *kgoUpgradeProcess) Consumer() bool   { return p.consumer }
func (p *kgoUpgradeProcess) Consumed() int    { return p.consumed() }
func (p *kgoUpgradeProcess) Close()           { p.close() }

func (p *kgoUpgradeProcess) MemberID() (string, bool) {
	id, _ := p.cl.GroupMetadata()
	return id, true
}

func (p *kgoUpgradeProcess) Owned() []int32 {
	p.own.mu.Lock()
	defer p.own.mu.Unlock()
	return slices.Sorted(maps.Keys(p.own.ps))
}

// The fleet's findings in an upgrade: a static consumer-protocol
// process's close is G2's leave (epoch -2 without InstanceId, refused by
// Kafka), whatever its instance.
var findingUpgradeStaticLeave = finding{id: "G2", rule: rules.RuleStaticLeaveWithInstanceID, detail: "at epoch -2 without InstanceId"}

// The fleet, dynamic and static, against a correct coordinator: every
// step settles, the group's steps and conversions are the expected ones,
// no live process is fenced, and each process keeps the client rules
// (static: G2 on the consumer-protocol processes' closes).
func TestKgoRealUpgrade(t *testing.T) {
	t.Parallel()
	for _, static := range []bool{false, true} {
		name := "dynamic"
		if static {
			name = "static"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newUpgradeWorld(t, impl.Mutants{})
			r, err := w.Upgrade(kgoUpgradeStarter(t, w), static, time.Minute)
			verdicts := w.Judge(t, r, err, static)
			for _, p := range r.Processes {
				t.Run(p.ClientID(), func(t *testing.T) {
					c := verdicts[p.ClientID()]
					switch {
					case p.Consumer() && static:
						expect(t, c, findingUpgradeStaticLeave)
					case p.Consumer():
						expect(t, c)
					default:
						expectClassic(t, kgoClassic, c)
					}
				})
			}
		})
	}
}

// The upgrade against a coordinator with each of impl's planted mixed
// group bugs (impl.MixedMutants): the checker checks itself. A mutant is
// caught when a step does not settle to the live processes (each owning
// what the coordinator says, no partition owned twice, within 15 s), the
// group's steps or conversions are not the correct ones, or a live
// process is fenced; missed says which ones a real fleet cannot show, and
// why.
func TestKgoRealUpgradeCatchesMixedMutants(t *testing.T) {
	t.Parallel()
	missed := map[string]string{
		"classic-session-group-timeout": "every classic process heartbeats every 200 ms: no session runs out, whichever timeout it has",
		// The mutants of the mixed groups' other clauses (issue 28): the
		// fleet is dynamic, never restarts its coordinator, loses no
		// answer, has no size cap and keeps its topics, so these settle
		// as the correct coordinator's do; the run catches each.
		"classic-join-classic-style-id":       "kgo's classic consumer takes whatever member id it is given",
		"classic-join-max-size-off-by-one":    "the world sets no group size cap",
		"classic-join-no-member-id-required":  "no answer is lost: a member added at once is the member the MEMBER_ID_REQUIRED round trip would make",
		"classic-unknown-instance-joins":      "the fleet is dynamic: no JoinGroup names an instance",
		"classic-static-replacement-bumps":    "the fleet is dynamic: no static replacement",
		"classic-member-joined-no-bump":       "a classic process given nothing owns what the coordinator says (nothing), so its step settles",
		"classic-subscription-change-no-bump": "no process changes its topics",
		"classic-join-timer-ignored":          "every classic process rejoins in time: no join timer runs out",
		"classic-sync-timer-ignored":          "every classic process syncs in time: no sync timer runs out",
		"restart-keeps-classic-timers":        "the world never restarts the coordinator",
		"classic-sync-ignores-epoch":          "no classic SyncGroup arrives after the group epoch passed its member's, or its Heartbeat's REBALANCE_IN_PROGRESS makes it rejoin anyway",
		"classic-heartbeat-no-session":        "each step settles within the classic session after the last join or sync that started it",
		"classic-holder-unreleased":           "the fleet is dynamic: no instance held by a classic member",
		"upgrade-waiting-unknown":             "a kgo classic member answered UNKNOWN_MEMBER_ID rejoins as after REBALANCE_IN_PROGRESS, and the steps settle the same",
		"upgrade-empty-assignment-read":       "the upgrades the world makes come after every classic member synced, so no assignment is empty",
		// The mutants of the odd requests only the run's prober sends
		// (plan.ProbeMixedOddRequest): the fleet is one build, one
		// configuration and one protocol type, and a process switches
		// protocol under a new member id.
		"classic-join-protocol-type-unchecked":   "every classic process joins with protocol type consumer",
		"classic-join-undecodable-as-empty":      "every classic process's metadata is a ConsumerProtocolSubscription",
		"classic-sync-protocol-name-unchecked":   "every classic process syncs with the protocol its join was answered",
		"upgrade-ignores-protocol-type":          "no group of another protocol type shares the group id",
		"classic-join-fenced-as-unknown":         "the fleet is dynamic: no JoinGroup names an instance",
		"classic-sync-generation-unchecked":      "no zombie: every SyncGroup carries its join's generation",
		"classic-heartbeat-generation-unchecked": "no zombie: every Heartbeat carries the process's current generation",
		"switch-keeps-classic-state":             "a process switches protocol under a new member id, never in place",
	}
	for _, m := range impl.MixedMutants() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			w := newUpgradeWorld(t, impl.Mutants{}.With(m.Mutant))
			r, err := w.Upgrade(kgoUpgradeStarter(t, w), false, 15*time.Second)
			caught := r.Check(false)
			if err != nil {
				caught = err.Error()
			}
			if f := w.Fencings(); caught == "" && len(f) > 0 {
				caught = fmt.Sprintf("live processes fenced: %q", f)
			}
			why, miss := missed[m.Name]
			switch {
			case caught != "" && miss:
				t.Errorf("caught (%s), but listed as missed: %s", caught, why)
			case caught != "":
				t.Logf("caught: %s", caught)
			case miss:
				t.Logf("missed, as listed: %s", why)
			default:
				t.Errorf("not caught: %s (%s); steps %q, conversions %q", m.Name, m.Description, r.Steps, r.Conversions)
			}
		})
	}
}
