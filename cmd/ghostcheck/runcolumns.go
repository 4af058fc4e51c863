package main

import (
	"fmt"
	"strconv"

	"github.com/ghostcheck/ghostcheck/plan"
)

// column is one column of `ghostcheck run`: the versions its clients
// speak, each column's histories drawn from the same seeds.
type column struct {
	// hv is the ConsumerGroupHeartbeat version of the consumer-protocol
	// clients: 1, 0, or -1 for a mix.
	hv int
	// join is the classic clients' highest JoinGroup version: 9 (KIP-394),
	// 3 (before it); 0 in a run without classic groups.
	join int16
	// protocol is the run's (plan.Options.Protocol).
	protocol plan.Protocol
	// control: the column that shows what a KIP prevents (v0 beside v1,
	// JoinGroup v3 beside v4+): its ghosts are expected and fail nothing.
	control bool
}

// classic reports whether the column has classic groups.
func (c column) classic() bool { return c.join > 0 }

// options are o as the column draws its plans.
func (c column) options(o plan.Options) plan.Options {
	o.HeartbeatVersion = c.hv
	if c.classic() {
		o.Protocol, o.JoinGroupVersion = c.protocol, c.join
	}
	return o
}

// label names the column in summaries.
func (c column) label() string {
	switch {
	case c.protocol == plan.ProtocolUpgrade:
		return fmt.Sprintf("upgrade classic → consumer %s", versionLabel(c.hv))
	case c.protocol == plan.ProtocolRollback:
		return fmt.Sprintf("rollback consumer %s → classic", versionLabel(c.hv))
	case c.protocol == plan.ProtocolClassic && c.join >= 4:
		return "JoinGroup v4+ (KIP-394)"
	case c.protocol == plan.ProtocolClassic:
		return "JoinGroup v3 (no KIP-394)"
	case c.classic():
		return fmt.Sprintf("mixed %s, %s", versionLabel(c.hv), joinLabel(c.join))
	}
	return phaseLabel(c.hv)
}

func versionLabel(hv int) string {
	if hv < 0 {
		return "v0/v1"
	}
	return "v" + strconv.Itoa(hv)
}

func joinLabel(join int16) string {
	if join >= 4 {
		return "JoinGroup v4+"
	}
	return "JoinGroup v3"
}

// flags are the flags of `ghostcheck run` that select the column.
func (c column) flags() string {
	if !c.classic() {
		return "--heartbeat-version " + versionFlag(c.hv)
	}
	if c.protocol.Migrates() {
		return fmt.Sprintf("--protocol %s --heartbeat-version %s", c.protocol, versionFlag(c.hv))
	}
	f := fmt.Sprintf("--protocol %s --join-group-version %d", c.protocol, c.join)
	if c.protocol == plan.ProtocolMixed {
		f += " --heartbeat-version " + versionFlag(c.hv)
	}
	return f
}

// slug names the column in file names and JUnit classes: v1, v0, mixed
// (heartbeat versions, as before classic groups), classic-jg9, ...
func (c column) slug() string {
	switch {
	case c.protocol.Migrates():
		return fmt.Sprintf("%s-%s", c.protocol, versionFlag(c.hv))
	case c.protocol == plan.ProtocolClassic:
		return "classic-jg" + strconv.Itoa(int(c.join))
	case c.classic():
		return fmt.Sprintf("mixed-%s-jg%d", versionFlag(c.hv), c.join)
	}
	return versionFlag(c.hv)
}

// runColumns are the columns of a run of protocol: the heartbeat versions
// given (hvs) for the consumer protocol; JoinGroup v4+ and, to compare,
// the v3 control for the classic protocol (joinFlag "compare", or one
// version); for mixed runs both at once, the first heartbeat version with
// the first JoinGroup version, the controls together.
func runColumns(protocol plan.Protocol, hvs []int, joinFlag string, mutant bool) ([]column, error) {
	var joins []int16
	switch joinFlag {
	case "compare":
		joins = []int16{9, 3}
		if mutant {
			joins = joins[:1]
		}
	case "9", "4":
		joins = []int16{9}
	case "3":
		joins = []int16{3}
	default:
		return nil, fmt.Errorf("--join-group-version %q: want 9 (KIP-394), 3 (before it) or compare", joinFlag)
	}
	var out []column
	switch protocol {
	case plan.ProtocolConsumer:
		for i, v := range hvs {
			out = append(out, column{hv: v, protocol: protocol, control: len(hvs) == 2 && i == 1 && hvs[0] == 1 && v == 0})
		}
	case plan.ProtocolClassic:
		for i, j := range joins {
			out = append(out, column{hv: 1, join: j, protocol: protocol, control: len(joins) == 2 && i == 1})
		}
	case plan.ProtocolMixed:
		for i := range max(len(hvs), len(joins)) {
			c := column{hv: hvs[min(i, len(hvs)-1)], join: joins[min(i, len(joins)-1)], protocol: protocol}
			c.control = i == 1 && (c.hv == 0 || c.join < 4)
			out = append(out, c)
		}
	case plan.ProtocolUpgrade, plan.ProtocolRollback:
		// One column: the classic clients of today (JoinGroup v9) and the
		// first heartbeat version given; a migration has no control.
		out = append(out, column{hv: hvs[0], join: 9, protocol: protocol})
	}
	return out, nil
}

// column is the column a summary counted: the one it ran, or, for one read
// back from --json (run --coverage), the one its fields name.
func (ps *phaseSummary) column() column {
	if ps.col != (column{}) {
		return ps.col
	}
	c := column{hv: ps.Version, join: ps.JoinGroupVersion, protocol: ps.Protocol, control: ps.Control}
	if c.protocol == "" {
		c.protocol = plan.ProtocolConsumer
	}
	return c
}
