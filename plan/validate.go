package plan

import (
	"fmt"
)

// Validate checks that the plan is well formed (as a corpus file may not
// be): the run's sizes and timings, its clients, restarts, faults and
// administrative removals, in that order; the first error found is
// returned.
func (p *Plan) Validate() error {
	for _, err := range []error{p.validateRun(), p.validateClients(), p.validateRestarts(), p.validateClusterFaults(), p.validateFaults(), p.validateTimings(),
		p.validateResubscribes(), p.validateAdmin(), p.validateClassic()} {
		if err != nil {
			return err
		}
	}
	return nil
}

// validateRun checks the run's size and clock.
func (p *Plan) validateRun() error {
	switch {
	case p.Rounds <= 0 || p.Rounds > 100000:
		return fmt.Errorf("plan: rounds %d out of range", p.Rounds)
	case p.RoundMs <= 0:
		return fmt.Errorf("plan: roundMs %d must be positive", p.RoundMs)
	case p.SessionTimeoutMs <= 0:
		return fmt.Errorf("plan: sessionTimeoutMs %d must be positive", p.SessionTimeoutMs)
	case p.RequestTimeout <= 0:
		return fmt.Errorf("plan: requestTimeoutRounds must be positive")
	case len(p.Clients) == 0 || len(p.Clients) > 10000:
		return fmt.Errorf("plan: %d clients", len(p.Clients))
	}
	return nil
}

// validateClients checks that each client has a name, a group and a
// ConsumerGroupHeartbeat version.
func (p *Plan) validateClients() error {
	for i, c := range p.Clients {
		if c.Group == "" || c.Name == "" {
			return fmt.Errorf("plan: client %d needs a name and a group", i)
		}
		if c.HeartbeatVersion != 0 && c.HeartbeatVersion != 1 {
			return fmt.Errorf("plan: client %s heartbeat version %d", c.Name, c.HeartbeatVersion)
		}
	}
	return nil
}

// validateRestarts checks that the restarts ascend within the run.
func (p *Plan) validateRestarts() error {
	for i, r := range p.Restarts {
		if r < 1 || r >= p.Rounds || i > 0 && r <= p.Restarts[i-1] {
			return fmt.Errorf("plan: restarts %v must ascend within rounds 1 to %d", p.Restarts, p.Rounds-1)
		}
	}
	return nil
}

// validateFaults checks that each fault names a request and a kind.
func (p *Plan) validateFaults() error {
	for _, f := range p.Faults {
		if f.Client < 0 || f.Client >= len(p.Clients) || f.Request < 1 {
			return fmt.Errorf("plan: fault %+v names no request", f)
		}
		if _, err := ParseFaultKind(string(f.Kind)); err != nil {
			return err
		}
	}
	return nil
}

// validateTimings checks the optional timings and limits.
func (p *Plan) validateTimings() error {
	if p.SubRoundMs < 0 || p.RebalanceTimeoutMs < 0 || p.TelemetryMaxBytes < 0 || p.MaxGroupSize < 0 {
		return fmt.Errorf("plan: subRoundMs, rebalanceTimeoutMs, telemetryMaxBytes and maxGroupSize must not be negative")
	}
	if p.EdgeMs < 0 || (p.EdgeMs > 0 && p.EdgeMs >= p.SubRoundMs) {
		return fmt.Errorf("plan: edgeMs %d must be below subRoundMs %d and not negative", p.EdgeMs, p.SubRoundMs)
	}
	return nil
}

// validateResubscribes checks that only v1 clients subscribe by regex.
func (p *Plan) validateResubscribes() error {
	for _, c := range p.Clients {
		for _, a := range c.Actions {
			if a.Kind == Resubscribe && a.Regex != "" && c.HeartbeatVersion < 1 {
				return fmt.Errorf("plan: client %s resubscribes by regex at ConsumerGroupHeartbeat v0", c.Name)
			}
		}
	}
	return nil
}

// validateAdmin checks each removal's LeaveGroup version and entry names.
func (p *Plan) validateAdmin() error {
	for _, a := range p.Admin {
		if a.Version != nil && (*a.Version < 0 || *a.Version > 5) {
			return fmt.Errorf("plan: LeaveGroup v%d at round %d", *a.Version, a.Round)
		}
		for _, e := range a.Entries {
			for _, n := range []LeaveName{e.Member, e.Instance} {
				if n != NameNone && n != NameOwn && n != NameOther && n != NameUnknown {
					return fmt.Errorf("plan: LeaveGroup entry name %q", n)
				}
			}
		}
	}
	return nil
}
