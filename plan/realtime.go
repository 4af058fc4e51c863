package plan

// RealTime shapes a plan for a broker over TCP, where time is real.
type RealTime struct {
	// SessionTimeoutMs is the broker's session timeout (it must be
	// configured so: ghostcheck serve --session-timeout, kfake's
	// group.consumer.session.timeout.ms).
	SessionTimeoutMs int64
	// HeartbeatIntervalMs is the broker's heartbeat interval.
	HeartbeatIntervalMs int32
	// RoundMs is one round of real time (0: 50).
	RoundMs int64
	// GroupPrefix starts the plan's group ids, so runs against a broker
	// that keeps its state do not meet each other's groups.
	GroupPrefix string
	// Cluster, when set, is what the target can play of a cluster's
	// faults: the plan draws them (drawClusterFaults), last, so the rest
	// of the plan is the one its seed gives.
	Cluster *Cluster
}

// ForRealTime draws a plan for a broker over TCP: short rounds of real time,
// the broker's session timeout and heartbeat interval, and request
// timeouts long enough that the clients' rebalance timeout (four request
// timeouts) is at least the session timeout. The plan's SessionTimeoutMs
// is the broker's plus a slack of ten rounds: the driver's invariants
// then give a crashed process's member that much longer to expire (the
// broker's timer granularity), and on top the lag and the stall the target
// measured (MaxLagMs, MaxStallMs), which absorb the difference between
// logical and real time and a broker stopped with the checking process on
// a loaded machine. A crashed or closed client's connection is closed, as
// its process's sockets would be, and the run quiesces for that session
// timeout, slack, lag and stall included, past the last request any client
// got delivered: a member the broker keeps alive
// after its client died is still there at the last observation, a ghost
// (NoGhosts).
func ForRealTime(seed uint64, o Options, t RealTime) Plan {
	p := New(seed, o)
	if t.RoundMs <= 0 {
		t.RoundMs = 50
	}
	p.RoundMs = t.RoundMs
	p.SessionTimeoutMs = t.SessionTimeoutMs + 10*t.RoundMs
	p.HeartbeatIntervalMs = t.HeartbeatIntervalMs
	p.RequestTimeout = 4
	for int64(4*p.RequestTimeout)*p.RoundMs < t.SessionTimeoutMs {
		p.RequestTimeout++
	}
	p.DescribeEvery = 2
	// A broker reached by address is not restarted by ghostcheck.
	p.Restarts = nil
	p.forAnyBroker()
	p.ClusterFaults = drawClusterFaults(seed, t.Cluster, p.Rounds, len(p.Clients))
	if t.GroupPrefix != "" {
		for i := range p.Clients {
			p.Clients[i].Group = t.GroupPrefix + p.Clients[i].Group
		}
		for i := range p.Admin {
			p.Admin[i].Group = t.GroupPrefix + p.Admin[i].Group
		}
		for i := range p.Probes {
			p.Probes[i].Group = t.GroupPrefix + p.Probes[i].Group
		}
	}
	return p
}

// forAnyBroker drops what only a coordinator ghostcheck configures can
// play (a broker reached by address is configured by its operator):
// version caps, a group size cap and the telemetry payload limit; and the
// clients' rebalance timeout goes back to four request timeouts, which
// ForRealTime sizes against the broker's session timeout. The refusal,
// assignment and migration (ProbeMixedOddRequest) probes are left out
// too: a broker's known findings
// (`ghostcheck check --known`) do not cover them yet, and the ones it
// breaks would hide everything else a history shows.
func (p *Plan) forAnyBroker() {
	p.MaxVersions, p.MaxGroupSize, p.TelemetryMaxBytes, p.RebalanceTimeoutMs = nil, 0, 0, 0
	left := map[ProbeKind]bool{}
	for _, k := range append(refusalProbeKinds(), assignmentProbeKinds()...) {
		left[k] = true
	}
	left[ProbeMixedOddRequest] = true
	var kept []Probe
	for _, pr := range p.Probes {
		if !left[pr.Kind] {
			kept = append(kept, pr)
		}
	}
	p.Probes = kept
}
