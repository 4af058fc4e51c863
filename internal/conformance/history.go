package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ghostcheck/ghostcheck/linearize"
)

// HistoryConfig is a fault-injected history run against a broker over TCP.
type HistoryConfig struct {
	Peer Peer
	// Seed of the first history; history i uses Seed+i.
	Seed      uint64
	Histories int
	Options   linearize.Options
	// RoundMs is one round of real time (0: 50).
	RoundMs int64
	// Out, if set, receives each failing history as JSON lines.
	Out string
}

// HistoryResult is one history's verdict.
type HistoryResult struct {
	Seed       uint64
	Plan       string
	Operations int
	Faults     map[linearize.FaultKind]int
	Verdict    linearize.Verdict
	Rule       string
	Detail     string
	LagMs      int64
	Seconds    float64
	File       string `json:",omitempty"`
	// Run and Report are the history and its verdict, and RoundTrips the
	// broker's round-trip times by API (real time), for the HTML report.
	Run        *linearize.Result          `json:"-"`
	Report     *linearize.Report          `json:"-"`
	RoundTrips map[string][]time.Duration `json:"-"`
}

// DefaultHistoryOptions is a busy plan sized for real time: 6 clients in
// 2 groups over 40 rounds, 10 % of requests mistreated.
func DefaultHistoryOptions() linearize.Options {
	o := linearize.DefaultOptions()
	o.Rounds = 40
	o.Restarts = false // a broker reached by address is not restarted by ghostcheck
	return o
}

// RunHistories runs cfg.Histories plans against the broker and checks each
// at the observable level.
func RunHistories(cfg HistoryConfig, progress func(HistoryResult)) ([]HistoryResult, error) {
	if cfg.Peer.SessionTimeout <= 0 || cfg.Peer.HeartbeatInterval <= 0 {
		return nil, fmt.Errorf("a history needs the broker's session timeout and heartbeat interval")
	}
	if cfg.Peer.Timeout <= 0 {
		cfg.Peer.Timeout = 5 * time.Second
	}
	prefix := cfg.Peer.Prefix
	if prefix == "" {
		prefix = fmt.Sprintf("gc-h%d-", time.Now().UnixNano()%1e9)
	}
	var out []HistoryResult
	for i := 0; i < cfg.Histories; i++ {
		seed := cfg.Seed + uint64(i)
		start := time.Now()
		plan := linearize.TCPPlan(seed, cfg.Options, linearize.TCPOptions{
			SessionTimeoutMs:    cfg.Peer.SessionTimeout.Milliseconds(),
			HeartbeatIntervalMs: int32(cfg.Peer.HeartbeatInterval.Milliseconds()),
			RoundMs:             cfg.RoundMs,
			GroupPrefix:         fmt.Sprintf("%s%d-", prefix, seed),
		})
		target, err := linearize.NewTCPTarget(cfg.Peer.Addr, cfg.Peer.Timeout)
		if err != nil {
			return out, err
		}
		res, err := linearize.Run(target, plan)
		target.Close()
		if err != nil {
			return out, err
		}
		rep := linearize.Check(res, linearize.CheckOptions{Level: linearize.LevelObservable, LagMs: target.MaxLagMs(),
			SessionTimeoutMs: cfg.Peer.SessionTimeout.Milliseconds()})
		hr := HistoryResult{Seed: seed, Plan: plan.String(), Operations: len(res.History), Faults: res.Faults,
			Verdict: rep.Verdict, Rule: rep.Rule, Detail: rep.Detail, LagMs: target.MaxLagMs(), Seconds: time.Since(start).Seconds(),
			Run: res, Report: rep, RoundTrips: target.RoundTrips()}
		if rep.Verdict != linearize.Ok && cfg.Out != "" {
			if err := os.MkdirAll(cfg.Out, 0o755); err == nil {
				hr.File = filepath.Join(cfg.Out, fmt.Sprintf("check-seed%d.jsonl", seed))
				if f, err := os.Create(hr.File); err == nil {
					hdr := linearize.FileHeader{Target: cfg.Peer.Addr, Title: "ghostcheck check: " + rep.Rule, Plan: plan,
						Expect: linearize.Expect{Verdict: rep.Verdict, Rule: rep.Rule}}
					_ = linearize.WriteFile(f, hdr, res.History)
					f.Close()
				}
			}
		}
		out = append(out, hr)
		if progress != nil {
			progress(hr)
		}
	}
	return out, nil
}
