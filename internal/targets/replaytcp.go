package targets

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
	"github.com/ghostcheck/ghostcheck/tcptarget"
	"github.com/ghostcheck/ghostcheck/wire"
)

// replayTCP re-runs a history of ghostcheck check (a plan for a broker
// over TCP, plan.ForRealTime) against the broker or cluster at
// opts.Bootstrap and checks it at the observable level, as check did. The
// broker must be configured with the timers the plan holds. The groups get
// a fresh prefix, so a broker that kept the first run's groups does not
// meet them again. The plan's cluster faults are played as far as the
// target can (a connection reset always; a coordinator move or a broker
// down needs a fake's controls, which a broker reached by address does
// not give: those are left out, and the result's notes say so). What the
// first run's --known file changed is not replayed: its probes are
// already out of the stored plan, but its workarounds and the violations
// it set aside are not in the file. A refused authentication is an error
// wrapping wire.ErrAuth.
func replayTCP(rr ReplayResult, opts ReplayOptions) (ReplayResult, error) {
	p := freshGroups(rr.Header.Plan, fmt.Sprintf("gc-r%d-", time.Now().UnixNano()%1e9))
	rr.Target = strings.Join(opts.Bootstrap, ",")
	d := opts.Dialer
	d.Timeout = 5 * time.Second
	target, err := tcptarget.Dial(context.Background(), opts.Bootstrap, wire.ClusterOptions{Dialer: d, ClientID: "ghostcheck-replay",
		Seed: p.Seed + 1, Backoff: wire.Backoff{MaxWait: time.Duration(brokerSessionMs(p)/3) * time.Millisecond}})
	if err != nil {
		return rr, fmt.Errorf("%s: %w", rr.Path, err)
	}
	res, err := driver.Run(target, p)
	target.Close()
	if err != nil {
		return rr, err
	}
	rep := check.Check(res, check.Options{Level: check.LevelObservable, LagMs: target.MaxLagMs(),
		SessionTimeoutMs: brokerSessionMs(p), Timeout: opts.timeout()})
	if rep.Verdict == history.Ok && !anyJoined(res.History) {
		rep.Verdict, rep.Rule = history.Unknown, string(rules.RuleHarnessAssumption)
		rep.Detail = "no ConsumerGroupHeartbeat was answered NONE: no client joined, so the history checked nothing"
	}
	rr.settle(res, rep)
	return rr, nil
}

// brokerSessionMs is the broker's session timeout in a plan made by
// plan.ForRealTime, which adds ten rounds of slack to it.
func brokerSessionMs(p plan.Plan) int64 {
	if ms := p.SessionTimeoutMs - 10*p.RoundMs; ms > 0 {
		return ms
	}
	return p.SessionTimeoutMs
}

// freshGroups renames every group of p with prefix in front.
func freshGroups(p plan.Plan, prefix string) plan.Plan {
	p.Clients = append([]plan.ClientPlan(nil), p.Clients...)
	for i := range p.Clients {
		p.Clients[i].Group = prefix + p.Clients[i].Group
	}
	p.Admin = append([]plan.AdminRemoval(nil), p.Admin...)
	for i := range p.Admin {
		p.Admin[i].Group = prefix + p.Admin[i].Group
	}
	p.Probes = append([]plan.Probe(nil), p.Probes...)
	for i := range p.Probes {
		p.Probes[i].Group = prefix + p.Probes[i].Group
	}
	return p
}

// anyJoined reports whether some heartbeat was answered NONE: a history in
// which no client joined says nothing about the broker, and is not Ok.
func anyJoined(h history.History) bool {
	for _, op := range h {
		if r, ok := op.Response.(*codec.ConsumerGroupHeartbeatResponse); ok && r.ErrorCode == codec.None {
			return true
		}
	}
	return false
}
