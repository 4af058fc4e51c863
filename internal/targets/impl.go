package targets

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// MixedMutant reports whether name is one of impl's mutants of mixed
// groups (impl.MixedMutants), which only plans that migrate a fleet show
// (plan.ProtocolUpgrade).
func MixedMutant(name string) bool {
	for _, m := range impl.MixedMutants() {
		if m.Name == name {
			return true
		}
	}
	return false
}

// MutantPlans is the protocol of the plans that show mutant name: mixed
// plans for a classic mutant whose clauses are all A6.4's (a request of
// one protocol to a group of the other, which only plans with groups of
// both kinds send), classic plans for the classic protocol's other
// mutants, upgrade plans for the mixed groups' (MixedMutant), "" (the
// consumer protocol's) for the rest.
func MutantPlans(name string) plan.Protocol {
	if MixedMutant(name) {
		return plan.ProtocolUpgrade
	}
	for _, m := range impl.AllMutants() {
		if m.Name != name || !m.Classic {
			continue
		}
		for _, c := range m.Breaks {
			if !strings.HasPrefix(c, "A6.4/") {
				return plan.ProtocolClassic
			}
		}
		return plan.ProtocolMixed
	}
	return ""
}

// RunMutants are the mutants the run catches alone (the kill table):
// impl.AllMutants, then the mixed groups' (run on upgrade plans).
func RunMutants() []impl.MutantInfo {
	return append(impl.AllMutants(), impl.MixedMutants()...)
}

// Mutants lists impl's mutants the run can plant: name and description.
func Mutants() [][2]string {
	var out [][2]string
	for _, m := range RunMutants() {
		out = append(out, [2]string{m.Name, m.Description})
	}
	return out
}

// NewImpl builds the optimized coordinator for plan p on a manual clock, with
// mutant switched on when named.
func NewImpl(p plan.Plan, mutant string) (driver.Target, error) {
	var muts impl.Mutants
	if mutant != "" {
		m, err := impl.ParseMutant(mutant)
		if err != nil {
			return nil, err
		}
		muts = muts.With(m)
	}
	clock := impl.NewManualClock(0)
	c := impl.New(ImplConfig(p.ModelConfig(), clock, muts))
	return driver.WithSnapshot(&implTarget{implFuncs(c, clock), c}, cachedSnapshots(c.NewSnapshotCache())), nil
}

// implTarget is impl as a target that parks (driver.Parker): impl holds
// classic JoinGroups and SyncGroups as the model does.
type implTarget struct {
	driver.Funcs
	c *impl.Coordinator
}

// Released implements driver.Parker.
func (t *implTarget) Released() []driver.Release { return driverReleases(t.c.Released()) }

// implFuncs is c as a target on clock, without its snapshots: the target
// answers as c does, its time is clock's, and a restart is c's.
func implFuncs(c *impl.Coordinator, clock *impl.ManualClock) driver.Funcs {
	return driver.Funcs{
		HandleFunc: func(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
			resp, err := c.Handle(impl.Conn{ID: conn.ID, Host: conn.Host, Delivery: conn.Delivery}, h, req)
			if err != nil && errors.Is(err, impl.ErrParked) { // most answers: no error to unwrap
				err = driver.ErrParked
			}
			return resp, err
		},
		DisconnectFunc: c.Disconnect,
		AdvanceFunc: func(now int64) error {
			clock.Set(now)
			c.Expire()
			return nil
		},
		RestartFunc: func() error {
			c.Restart()
			return nil
		},
		// impl answers byte for byte as the model does (impl/equivtest).
		Exact: true,
	}
}

// cachedSnapshots is ModelSnapshot(c.Snapshot()) for the driver, which
// takes a snapshot after every round: a group impl reports unchanged since
// the last one (impl.SnapshotCache) is not converted again, its model
// snapshot of then is handed out again (the driver only reads snapshots).
func cachedSnapshots(cache *impl.SnapshotCache) func() []rules.GroupSnapshot {
	last := map[string]rules.GroupSnapshot{}
	var prev []rules.GroupSnapshot
	return func() []rules.GroupSnapshot {
		gs, same := cache.Snapshot()
		if unchanged(gs, same, prev) {
			return prev // nothing changed: the very list the last call returned
		}
		out := make([]rules.GroupSnapshot, 0, len(gs))
		for i := range gs {
			mg, ok := last[gs[i].GroupID]
			if !ok || !same[i] {
				mg = modelGroup(gs[i])
				last[gs[i].GroupID] = mg
			}
			out = append(out, mg)
		}
		if !slices.IsSortedFunc(out, groupOrder) {
			slices.SortFunc(out, groupOrder)
		}
		prev = out
		return out
	}
}

// unchanged reports that gs lists the groups prev does, in its order, none
// changed since (same).
func unchanged(gs []impl.GroupSnapshot, same []bool, prev []rules.GroupSnapshot) bool {
	if len(gs) != len(prev) || prev == nil {
		return false
	}
	for i := range gs {
		if !same[i] || gs[i].GroupID != prev[i].GroupID {
			return false
		}
	}
	return true
}

// ImplConfig is impl's configuration for the coordinator the model config
// mc describes (the same topics, timeouts, limits and id source), on clock,
// with muts planted. NewID is mc's own function: a caller that also runs a
// model on mc gives impl a source of its own (the same seed gives the same
// ids), or the two would draw from one sequence.
func ImplConfig(mc model.Config, clock impl.Clock, muts impl.Mutants) impl.Config {
	cfg := impl.Config{
		SessionTimeoutMs:    mc.SessionTimeoutMs,
		HeartbeatIntervalMs: mc.HeartbeatIntervalMs,
		MaxGroupSize:        mc.MaxGroupSize,

		ClassicMinSessionTimeoutMs: mc.ClassicMinSessionTimeoutMs,
		ClassicMaxSessionTimeoutMs: mc.ClassicMaxSessionTimeoutMs,
		InitialRebalanceDelayMs:    mc.InitialRebalanceDelayMs,
		ClassicMaxGroupSize:        mc.ClassicMaxGroupSize,
		NewMemberJoinTimeoutMs:     mc.NewMemberJoinTimeoutMs,
		MigrationPolicy:            impl.MigrationPolicy(mc.MigrationPolicy),
		Telemetry:                  impl.TelemetryConfig(mc.Telemetry),
		MaxVersions:                mc.MaxVersions,
		NewID:                      mc.NewID,
		Clock:                      clock,
		Mutants:                    muts,
	}
	for _, t := range mc.Topics {
		cfg.Topics = append(cfg.Topics, impl.Topic(t))
	}
	return cfg
}

// ModelSnapshot converts impl's snapshot to the model's types, in the
// canonical form model.Coordinator.Snapshot produces, so that the two can
// be compared with reflect.DeepEqual and fed to the same invariants: the
// list is never nil (empty when there are no groups); groups are in id
// order and members in id order (Members nil for a group without members);
// Assigned, Pending and Target are never nil (a snapshot sees pending
// revocations and targets, unlike rules.SnapshotFromDescribe, whose nil
// Pending means "not seen"), and are in (topic, partition) order;
// SubscribedTopicNames is never nil and sorted. impl.Snapshot already keeps
// these orders; sorting here makes the form hold whatever the input.
func ModelSnapshot(gs []impl.GroupSnapshot) []rules.GroupSnapshot {
	out := make([]rules.GroupSnapshot, 0, len(gs))
	for _, g := range gs {
		out = append(out, modelGroup(g))
	}
	if !slices.IsSortedFunc(out, groupOrder) {
		slices.SortFunc(out, groupOrder)
	}
	return out
}

// modelGroup is one group of ModelSnapshot.
func modelGroup(g impl.GroupSnapshot) rules.GroupSnapshot {
	if g.Classic != nil {
		return modelClassicGroup(g)
	}
	mg := rules.GroupSnapshot{GroupID: g.GroupID, Epoch: g.Epoch}
	if len(g.Members) > 0 {
		mg.Members = make([]rules.MemberSnapshot, 0, len(g.Members))
	}
	// One array holds the group's partitions (the driver converts a
	// snapshot after every round); each member's lists are capped.
	n := 0
	for _, m := range g.Members {
		n += len(m.Assigned) + len(m.Pending) + len(m.Target)
	}
	parts := make([]rules.TopicPartition, 0, n)
	for _, m := range g.Members {
		ms := rules.MemberSnapshot{
			MemberID:             m.MemberID,
			InstanceID:           m.InstanceID,
			Epoch:                m.Epoch,
			SubscribedTopicNames: sortedNames(m.SubscribedTopicNames),
			SubscribedTopicRegex: m.SubscribedTopicRegex,
			ClassicProtocol:      m.ClassicProtocol,
		}
		parts, ms.Assigned = modelPartitions(parts, m.Assigned)
		parts, ms.Pending = modelPartitions(parts, m.Pending)
		parts, ms.Target = modelPartitions(parts, m.Target)
		mg.Members = append(mg.Members, ms)
	}
	if !slices.IsSortedFunc(mg.Members, memberOrder) {
		slices.SortFunc(mg.Members, memberOrder)
	}
	return mg
}

// modelClassicGroup is one classic group of ModelSnapshot, in the form
// model.Coordinator.Snapshot gives it: the generation also as Epoch,
// members in id order made by rules.ClassicMember (the assignment decoded),
// pending ids in id order (nil when none).
func modelClassicGroup(g impl.GroupSnapshot) rules.GroupSnapshot {
	cg := &rules.ClassicGroup{State: g.Classic.State, Generation: g.Epoch, ProtocolType: g.Classic.ProtocolType,
		Protocol: g.Classic.Protocol, Leader: g.Classic.Leader}
	mg := rules.GroupSnapshot{GroupID: g.GroupID, Epoch: g.Epoch, Kind: rules.KindClassic, Classic: cg}
	if len(g.Members) > 0 {
		mg.Members = make([]rules.MemberSnapshot, 0, len(g.Members))
	}
	for _, m := range g.Members {
		ms := rules.ClassicMemberSnapshot(m.MemberID, m.InstanceID, m.Classic.Assignment)
		ms.Classic.Waiting, ms.Classic.SessionTimeoutMs, ms.Classic.New = m.Classic.Waiting, m.Classic.SessionTimeoutMs, m.Classic.New
		mg.Members = append(mg.Members, ms)
	}
	if !slices.IsSortedFunc(mg.Members, memberOrder) {
		slices.SortFunc(mg.Members, memberOrder)
	}
	for _, p := range g.Classic.Pending {
		cg.Pending = append(cg.Pending, rules.PendingSnapshot{ID: p.ID, Deadline: p.Deadline})
	}
	slices.SortFunc(cg.Pending, func(a, b rules.PendingSnapshot) int { return cmp.Compare(a.ID, b.ID) })
	return mg
}

func memberOrder(a, b rules.MemberSnapshot) int { return cmp.Compare(a.MemberID, b.MemberID) }

func groupOrder(a, b rules.GroupSnapshot) int { return cmp.Compare(a.GroupID, b.GroupID) }

func partitionOrder(a, b rules.TopicPartition) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// sortedNames is names sorted, never nil: names itself when it is sorted
// (impl.Snapshot makes every list afresh; nothing changes a snapshot
// after), else a sorted copy.
func sortedNames(names []string) []string {
	switch {
	case names == nil:
		return []string{}
	case slices.IsSorted(names):
		return names
	}
	out := append([]string{}, names...)
	slices.Sort(out)
	return out
}

// modelPartitions appends ps, converted and sorted, to parts (which has
// the room) and returns parts and the appended part, capped (never nil).
func modelPartitions(parts []rules.TopicPartition, ps []impl.TopicPartition) ([]rules.TopicPartition, []rules.TopicPartition) {
	from := len(parts)
	for _, p := range ps {
		parts = append(parts, rules.TopicPartition(p))
	}
	mine := parts[from:len(parts):len(parts)]
	if !slices.IsSortedFunc(mine, partitionOrder) {
		slices.SortFunc(mine, partitionOrder)
	}
	return parts, mine
}
