package targets

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/linearize"
	"github.com/ghostcheck/ghostcheck/model"
)

func init() {
	builders["impl"] = NewImpl
}

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
	mc := plan.ModelConfig()
	cfg := impl.Config{
		SessionTimeoutMs:    mc.SessionTimeoutMs,
		HeartbeatIntervalMs: mc.HeartbeatIntervalMs,
		MaxGroupSize:        mc.MaxGroupSize,
		Telemetry:           impl.TelemetryConfig(mc.Telemetry),
		MaxVersions:         mc.MaxVersions,
		NewID:               mc.NewID,
		Mutants:             muts,
	}
	for _, t := range mc.Topics {
		cfg.Topics = append(cfg.Topics, impl.Topic(t))
	}
	clock := impl.NewManualClock(0)
	cfg.Clock = clock
	c := impl.New(cfg)
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
	}
	return linearize.WithSnapshot(t, func() []model.GroupSnapshot { return toModel(c.Snapshot()) }), nil
}

func toModel(gs []impl.GroupSnapshot) []model.GroupSnapshot {
	out := make([]model.GroupSnapshot, 0, len(gs))
	for _, g := range gs {
		mg := model.GroupSnapshot{GroupID: g.GroupID, Epoch: g.Epoch}
		for _, m := range g.Members {
			mm := model.MemberSnapshot{MemberID: m.MemberID, InstanceID: m.InstanceID, Epoch: m.Epoch}
			for _, p := range m.Assigned {
				mm.Assigned = append(mm.Assigned, model.TopicPartition(p))
			}
			for _, p := range m.Pending {
				mm.Pending = append(mm.Pending, model.TopicPartition(p))
			}
			mg.Members = append(mg.Members, mm)
		}
		out = append(out, mg)
	}
	return out
}
