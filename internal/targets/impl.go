package targets

import (
	"cmp"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/linearize"
	"github.com/ghostcheck/ghostcheck/model"
)

// Mutants lists impl's mutants: name and description.
func Mutants() [][2]string {
	var out [][2]string
	for _, m := range impl.AllMutants() {
		out = append(out, [2]string{m.Name, m.Description})
	}
	return out
}

// NewImpl builds the optimized coordinator for plan on a manual clock, with
// mutant switched on when named.
func NewImpl(plan linearize.Plan, mutant string) (linearize.Target, error) {
	var muts impl.Mutants
	if mutant != "" {
		m, err := impl.ParseMutant(mutant)
		if err != nil {
			return nil, err
		}
		muts = muts.With(m)
	}
	clock := impl.NewManualClock(0)
	c := impl.New(ImplConfig(plan.ModelConfig(), clock, muts))
	t := linearize.Funcs{
		HandleFunc: func(conn linearize.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
			return c.Handle(impl.Conn{ID: conn.ID, Host: conn.Host}, h, req)
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
	return linearize.WithSnapshot(t, func() []model.GroupSnapshot { return ModelSnapshot(c.Snapshot()) }), nil
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
		Telemetry:           impl.TelemetryConfig(mc.Telemetry),
		MaxVersions:         mc.MaxVersions,
		NewID:               mc.NewID,
		Clock:               clock,
		Mutants:             muts,
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
// revocations and targets, unlike model.SnapshotFromDescribe, whose nil
// Pending means "not seen"), and are in (topic, partition) order;
// SubscribedTopicNames is never nil and sorted. impl.Snapshot already keeps
// these orders; sorting here makes the form hold whatever the input.
func ModelSnapshot(gs []impl.GroupSnapshot) []model.GroupSnapshot {
	out := make([]model.GroupSnapshot, 0, len(gs))
	for _, g := range gs {
		mg := model.GroupSnapshot{GroupID: g.GroupID, Epoch: g.Epoch}
		for _, m := range g.Members {
			mg.Members = append(mg.Members, model.MemberSnapshot{
				MemberID:             m.MemberID,
				InstanceID:           m.InstanceID,
				Epoch:                m.Epoch,
				Assigned:             modelPartitions(m.Assigned),
				Pending:              modelPartitions(m.Pending),
				Target:               modelPartitions(m.Target),
				SubscribedTopicNames: sortedNames(m.SubscribedTopicNames),
				SubscribedTopicRegex: m.SubscribedTopicRegex,
			})
		}
		slices.SortFunc(mg.Members, func(a, b model.MemberSnapshot) int { return cmp.Compare(a.MemberID, b.MemberID) })
		out = append(out, mg)
	}
	slices.SortFunc(out, func(a, b model.GroupSnapshot) int { return cmp.Compare(a.GroupID, b.GroupID) })
	return out
}

// sortedNames is a sorted copy of names, never nil.
func sortedNames(names []string) []string {
	out := append([]string{}, names...)
	slices.Sort(out)
	return out
}

func modelPartitions(ps []impl.TopicPartition) []model.TopicPartition {
	out := make([]model.TopicPartition, 0, len(ps))
	for _, p := range ps {
		out = append(out, model.TopicPartition(p))
	}
	slices.SortFunc(out, func(a, b model.TopicPartition) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}
