package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// HistoryConfig is a fault-injected history run against a broker over TCP.
type HistoryConfig struct {
	Peer Peer
	// Seed of the first history; history i uses Seed+i.
	Seed      uint64
	Histories int
	Options   plan.Options
	// RoundMs is one round of real time (0: 50).
	RoundMs int64
	// Out, if set, receives each history that is not Ok as JSON lines.
	Out string
	// Known are findings already recorded: their probes are left out of
	// the plans, violations of their rules are KNOWN, their workarounds
	// are applied.
	Known *Known
	// Broker is where the histories go (nil: Peer.Bootstrap). After a
	// crash, with a Launcher, each history gets a fresh broker.
	Broker *Broker
	// Control, if set, plays the cluster faults the Kafka protocol cannot
	// (a fake's coordinator moves, brokers stopped and started): the
	// plans draw them (tcptarget.Control). Against a cluster of several
	// brokers the plans draw connection resets in any case.
	Control tcptarget.Control
}

// History statuses besides the verdicts Ok, Illegal and Unknown.
const (
	// HistoryKnown: Illegal, breaking only rules of known findings.
	HistoryKnown = "KNOWN"
	// HistoryCrash: the broker stopped answering during the history.
	HistoryCrash = "CRASH"
)

// HistoryResult is one history's verdict.
type HistoryResult struct {
	Seed       uint64
	Plan       string
	Operations int
	Faults     map[plan.FaultKind]int
	// ClusterFaults counts the cluster faults played, by kind.
	ClusterFaults map[plan.ClusterFaultKind]int `json:",omitempty"`
	Verdict       history.Verdict
	// Status is the Verdict, or KNOWN or CRASH.
	Status string
	// Rule and Detail are the first rule broken that is not known.
	Rule   string
	Detail string
	LagMs  int64
	// StallMs is the longest the checking process was kept from
	// running or the broker took to answer a ping
	// (tcptarget.Target.MaxStallMs), which NoGhosts' grace counts on
	// top of the lag.
	StallMs int64
	// RetryMs is the time requests waited to be tried again on their
	// way to a coordinator (part of LagMs).
	RetryMs int64 `json:",omitempty"`
	Seconds float64
	File    string `json:",omitempty"`
	// Known lists the known findings the history reproduced, as "ID
	// rule".
	Known []string `json:",omitempty"`
	// Crash says how the broker stopped answering.
	Crash string `json:",omitempty"`
	// Run and Report are the history and its verdict, and RoundTrips the
	// broker's round-trip times by API (real time), for the HTML report.
	Run        *driver.Result             `json:"-"`
	Report     *check.Report              `json:"-"`
	RoundTrips map[string][]time.Duration `json:"-"`
}

// Failed reports whether the history is a finding that is not known.
func (h HistoryResult) Failed() bool {
	return h.Status != string(history.Ok) && h.Status != HistoryKnown
}

// HistoryReport is what RunHistories found.
type HistoryReport struct {
	Histories []HistoryResult
	// Negotiation are the notes of the ApiVersions negotiation (the
	// first history's).
	Negotiation []string `json:",omitempty"`
	// Unchecked are the rules the histories could not check: the broker
	// offers no ConsumerGroupDescribe (tcptarget.Target.Unchecked).
	Unchecked []string `json:",omitempty"`
	// LeftOut are the probes left out, as "KIND (ID)".
	LeftOut []string `json:",omitempty"`
	// Workarounds are the workarounds applied, as "NAME (ID)".
	Workarounds []string `json:",omitempty"`
	// Stopped, when set, says why the run ended early.
	Stopped string `json:",omitempty"`
}

// DefaultHistoryOptions is a busy plan sized for real time: 6 clients in
// 2 groups over 40 rounds, 10 % of requests mistreated.
func DefaultHistoryOptions() plan.Options {
	o := plan.DefaultOptions()
	o.Rounds = 40
	o.Restarts = false // a broker reached by address is not restarted by ghostcheck
	// A broker reached by address may run mixed groups (Kafka 4's default
	// migration policy, serve's too): a cross-kind join would convert a
	// group the plan's clients hold.
	o.CrossKindJoins = false
	return o
}

// RunHistories runs cfg.Histories plans against the broker, checks each
// at the observable level, and checks after each that the broker still
// answers.
func RunHistories(cfg HistoryConfig, progress func(HistoryResult)) (*HistoryReport, error) {
	if cfg.Peer.SessionTimeout <= 0 || cfg.Peer.HeartbeatInterval <= 0 {
		return nil, fmt.Errorf("a history needs the broker's session timeout and heartbeat interval")
	}
	if cfg.Peer.Timeout <= 0 {
		cfg.Peer.Timeout = 5 * time.Second
	}
	b := cfg.Broker
	if b == nil {
		var err error
		if b, err = NewBroker(cfg.Peer.Bootstrap, nil, 0); err != nil {
			return nil, err
		}
	}
	prefix := cfg.Peer.Prefix
	if prefix == "" {
		prefix = fmt.Sprintf("gc-h%d-", time.Now().UnixNano()%1e9)
	}
	rep := &HistoryReport{}
	for _, e := range cfg.Known.Of(KnownProbe) {
		rep.LeftOut = append(rep.LeftOut, fmt.Sprintf("%s (%s)", e.Name, e.ID))
	}
	for _, e := range cfg.Known.Of(KnownWorkaround) {
		rep.Workarounds = append(rep.Workarounds, fmt.Sprintf("%s (%s)", e.Name, e.ID))
	}
	for i := 0; i < cfg.Histories; i++ {
		seed := cfg.Seed + uint64(i)
		addr, err := b.next()
		if err != nil {
			rep.Stopped = err.Error()
			return rep, nil
		}
		hr, brokers, err := runHistory(cfg, rep, addr, seed, prefix)
		if err != nil {
			return rep, err
		}
		if err := b.allAlive(context.Background(), cfg.Peer.Dialer, brokers); err != nil {
			hr.Status, hr.Crash = HistoryCrash, crashWords(err, b)
			if !b.crashed() {
				rep.Stopped = fmt.Sprintf("the broker stopped answering during history seed %d (give a command that starts one, --broker-cmd, to go on)", seed)
			}
		}
		rep.Histories = append(rep.Histories, hr)
		if progress != nil {
			progress(hr)
		}
		if rep.Stopped != "" {
			break
		}
	}
	return rep, nil
}

func crashWords(err error, b *Broker) string {
	s := err.Error()
	if st, words := b.exit(); st != "" || words != "" {
		s += "; its process: " + orNone(st, "still running")
		if words != "" {
			s += "; its stderr ends: " + strings.ReplaceAll(words, "\n", " | ")
		}
	}
	return s
}

// runHistory runs and checks one plan against the cluster at bootstrap,
// and returns the addresses of its brokers (each must still answer).
func runHistory(cfg HistoryConfig, rep *HistoryReport, bootstrap []string, seed uint64, prefix string) (HistoryResult, []string, error) {
	start := time.Now()
	d := cfg.Peer.Dialer
	d.Timeout = cfg.Peer.Timeout
	// A request's retries may wait a third of a session: a client's
	// session does not end while the target retries for it.
	target, err := tcptarget.Dial(context.Background(), bootstrap, wire.ClusterOptions{Dialer: d, ClientID: "ghostcheck-history",
		Seed: seed, Backoff: wire.Backoff{MaxWait: cfg.Peer.SessionTimeout / 3}})
	if err != nil {
		return HistoryResult{}, nil, err
	}
	target.Control = cfg.Control
	rt := plan.RealTime{
		SessionTimeoutMs:    cfg.Peer.SessionTimeout.Milliseconds(),
		HeartbeatIntervalMs: int32(cfg.Peer.HeartbeatInterval.Milliseconds()),
		RoundMs:             cfg.RoundMs,
		GroupPrefix:         fmt.Sprintf("%s%d-", prefix, seed),
	}
	if c := target.Cluster(); len(c.Brokers) > 1 || cfg.Control != nil {
		rt.Cluster = c
	}
	p := plan.ForRealTime(seed, cfg.Options, rt)
	p.Probes = leaveOutKnown(p.Probes, cfg.Known)
	var brokers []string
	for _, b := range target.Brokers() {
		brokers = append(brokers, b.Addr)
	}
	target.Rewrite = cfg.Known.rewrite()
	target.HeldTimeout = heldTimeout(p, cfg.Peer.Timeout)
	if rep.Negotiation == nil && rep.Unchecked == nil {
		rep.Negotiation = target.Negotiation().Notes
		// Classic groups are observed through DescribeGroups: a plan of
		// them alone loses nothing to a broker without
		// ConsumerGroupDescribe.
		if cfg.Options.Protocol != plan.ProtocolClassic {
			for _, r := range target.Unchecked() {
				rep.Unchecked = append(rep.Unchecked, string(r))
			}
		}
	}
	res, err := driver.Run(target, p)
	target.Close()
	if err != nil {
		return HistoryResult{}, nil, err
	}
	lr := check.Check(res, check.Options{Level: check.LevelObservable, LagMs: target.MaxLagMs(),
		SessionTimeoutMs: cfg.Peer.SessionTimeout.Milliseconds(), SetAside: cfg.Known.setAside()})
	hr := HistoryResult{Seed: seed, Plan: p.String(), Operations: len(res.History), Faults: res.Faults, ClusterFaults: res.ClusterFaults,
		Verdict: lr.Verdict, Status: string(lr.Verdict), Rule: lr.Rule, Detail: lr.Detail, LagMs: target.MaxLagMs(), StallMs: target.MaxStallMs(),
		RetryMs: target.RetryMs(), Seconds: time.Since(start).Seconds(), Run: res, Report: lr, RoundTrips: target.RoundTrips()}
	if len(hr.ClusterFaults) == 0 {
		hr.ClusterFaults = nil
	}
	if lr.Verdict == history.Ok && !anyJoined(res.History) {
		hr.Verdict, hr.Status, hr.Rule = history.Unknown, string(history.Unknown), string(rules.RuleHarnessAssumption)
		hr.Detail = "no ConsumerGroupHeartbeat or JoinGroup was answered NONE: no client joined, so the history checked nothing"
	}
	setAsideKnown(&hr, lr, cfg.Known)
	if lr.Verdict != history.Ok && cfg.Out != "" {
		if err := os.MkdirAll(cfg.Out, 0o755); err == nil {
			hr.File = filepath.Join(cfg.Out, fmt.Sprintf("check-seed%d.jsonl", seed))
			if f, err := os.Create(hr.File); err == nil {
				hdr := history.FileHeader{Target: strings.Join(bootstrap, ","), Title: "ghostcheck check: " + lr.Rule, Plan: p,
					Expect: history.Expect{Verdict: lr.Verdict, Rule: lr.Rule}}
				_ = history.WriteFile(f, hdr, res.History)
				f.Close()
			}
		}
	}
	return hr, brokers, nil
}

// anyJoined reports whether some heartbeat or classic JoinGroup was
// answered NONE: a history in which no client ever joined (a broker whose
// answers the clients cannot use) says nothing about the broker, and must
// not pass as Ok.
func anyJoined(h history.History) bool {
	for _, op := range h {
		switch r := op.Response.(type) {
		case *codec.ConsumerGroupHeartbeatResponse:
			if r.ErrorCode == codec.None {
				return true
			}
		case *codec.JoinGroupResponse:
			if r.ErrorCode == codec.None {
				return true
			}
		}
	}
	return false
}

// heldTimeout bounds the wait for a held classic request's answer over
// TCP: the longest a plan's classic client waits for its JoinGroup (its
// rebalance timeout and 5 s, A6.6), and the request timeout on top.
func heldTimeout(p plan.Plan, timeout time.Duration) time.Duration {
	var most int64
	for _, c := range p.Clients {
		if c.Classic != nil {
			most = max(most, c.Classic.JoinTimeoutMs())
		}
	}
	return timeout + time.Duration(most)*time.Millisecond
}

// leaveOutKnown drops the probes of known findings.
func leaveOutKnown(probes []plan.Probe, k *Known) []plan.Probe {
	var out []plan.Probe
	for _, p := range probes {
		if _, known := k.Probe(p.Kind); !known {
			out = append(out, p)
		}
	}
	return out
}

// setAsideKnown makes a history whose only violations are known
// findings' KNOWN, and otherwise names the first rule broken that is not
// known. The observable check has set aside the known violations of its
// own rules (Report.SetAside); the driver's invariants are sorted here,
// by their first violation.
func setAsideKnown(hr *HistoryResult, lr *check.Report, k *Known) {
	add := func(id, rule string) {
		if s := id + " " + rule; !slices.Contains(hr.Known, s) {
			hr.Known = append(hr.Known, s)
		}
	}
	for _, v := range lr.SetAside {
		if e, ok := k.violationOf(v.Rule, v.What); ok {
			add(e.ID, v.Rule)
		}
	}
	if lr.Verdict == history.Ok {
		if len(hr.Known) > 0 {
			hr.Status = HistoryKnown
		}
		return
	}
	if lr.Verdict != history.Illegal {
		return
	}
	var other *driver.RoundViolation
	for i, v := range lr.Invariants {
		if e, ok := k.violationOf(v.Rule, v.What); ok {
			add(e.ID, v.Rule)
			continue
		}
		if other == nil {
			other = &lr.Invariants[i]
		}
	}
	switch {
	case other == nil && len(hr.Known) > 0:
		hr.Status, hr.Rule, hr.Detail = HistoryKnown, "", ""
	case other != nil && (other.Rule != lr.Rule || other.What != firstWhat(lr)):
		// The first violation not known, even of the rule the report
		// names first (its first may be a known finding's).
		hr.Rule, hr.Detail = other.Rule, fmt.Sprintf("round %d (t=%d ms): %s", other.Round, other.At, other.What)
	}
}

// firstWhat is what the report's first invariant violation says ("" for
// none).
func firstWhat(lr *check.Report) string {
	if len(lr.Invariants) == 0 {
		return ""
	}
	return lr.Invariants[0].What
}

// joinRegexEmpty is WorkaroundJoinRegex for a request: a heartbeat naming
// topics with a null regex is sent with "" instead.
func joinRegexEmpty(_ *codec.RequestHeader, req codec.Message) codec.Message {
	hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest)
	if !ok || hb.SubscribedTopicNames == nil || hb.SubscribedTopicRegex.Valid {
		return req
	}
	c := *hb
	c.SubscribedTopicRegex = codec.Str("")
	return &c
}

// pushMetricsEmpty is WorkaroundPushMetrics for a request: a PushTelemetry
// is sent with no metrics.
func pushMetricsEmpty(_ *codec.RequestHeader, req codec.Message) codec.Message {
	p, ok := req.(*codec.PushTelemetryRequest)
	if !ok || len(p.Metrics) == 0 {
		return req
	}
	c := *p
	c.Metrics = []byte{}
	return &c
}
