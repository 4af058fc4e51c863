package main

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/plan"
	"github.com/ghostcheck/ghostcheck/wire"
)

// historyProtocol: without --protocol, histories against a broker that
// does not serve the consumer protocol are classic (and say why); a
// protocol named and not served is a SKIP with the reason; nothing known
// of the broker leaves the protocol as asked.
func TestHistoryProtocol(t *testing.T) {
	classic := wire.Versions{codec.JoinGroup: {0, 9}, codec.SyncGroup: {0, 5}, codec.Heartbeat: {0, 4}}
	with := func(vs wire.Versions, k codec.APIKey, r [2]int16) wire.Versions {
		out := wire.Versions{k: r}
		for key, v := range vs {
			out[key] = v
		}
		return out
	}
	cgh := with(classic, codec.ConsumerGroupHeartbeat, [2]int16{0, 1})
	listedUnserved := &conformance.Holding{Unserved: []string{"ConsumerGroupHeartbeat v0-v0"}}
	const (
		notListed    = "the broker does not serve the consumer protocol (ConsumerGroupHeartbeat not listed)"
		unserved     = "the broker does not serve the consumer protocol (ConsumerGroupHeartbeat listed but answered UNSUPPORTED_VERSION)"
		noClassic    = "the broker does not serve the classic protocol (JoinGroup, SyncGroup and Heartbeat)"
		classicWorks = "; without --protocol, or with --protocol classic, the histories run classic members"
	)
	for _, tc := range []struct {
		name     string
		asked    plan.Protocol
		set      bool
		versions wire.Versions
		held     *conformance.Holding
		want     historyChoice
	}{
		{"nothing known", plan.ProtocolConsumer, false, nil, nil, historyChoice{protocol: plan.ProtocolConsumer}},
		{"4.x default", plan.ProtocolConsumer, false, cgh, nil, historyChoice{protocol: plan.ProtocolConsumer}},
		{"2.3 default", plan.ProtocolConsumer, false, classic, nil, historyChoice{protocol: plan.ProtocolClassic, chosen: notListed}},
		{"3.9 default", plan.ProtocolConsumer, false, with(classic, codec.ConsumerGroupHeartbeat, [2]int16{0, 0}), listedUnserved,
			historyChoice{protocol: plan.ProtocolClassic, chosen: unserved}},
		{"3.9 consumer asked", plan.ProtocolConsumer, true, with(classic, codec.ConsumerGroupHeartbeat, [2]int16{0, 0}), listedUnserved,
			historyChoice{protocol: plan.ProtocolConsumer, skip: unserved + classicWorks}},
		{"2.3 mixed asked", plan.ProtocolMixed, true, classic, nil, historyChoice{protocol: plan.ProtocolMixed, skip: notListed + classicWorks}},
		{"2.3 classic asked", plan.ProtocolClassic, true, classic, nil, historyChoice{protocol: plan.ProtocolClassic}},
		{"consumer only, classic asked", plan.ProtocolClassic, true, wire.Versions{codec.ConsumerGroupHeartbeat: {0, 1}}, nil,
			historyChoice{protocol: plan.ProtocolClassic, skip: noClassic}},
		{"consumer only, mixed", plan.ProtocolMixed, true, wire.Versions{codec.ConsumerGroupHeartbeat: {0, 1}}, nil,
			historyChoice{protocol: plan.ProtocolMixed, skip: noClassic}},
		{"4.x upgrade", plan.ProtocolUpgrade, true, cgh, nil, historyChoice{protocol: plan.ProtocolUpgrade}},
		{"consumer only, rollback", plan.ProtocolRollback, true, wire.Versions{codec.ConsumerGroupHeartbeat: {0, 1}}, nil,
			historyChoice{protocol: plan.ProtocolRollback, skip: noClassic}},
		{"2.3 upgrade asked", plan.ProtocolUpgrade, true, classic, nil, historyChoice{protocol: plan.ProtocolUpgrade, skip: notListed + classicWorks}},
		{"neither", plan.ProtocolConsumer, false, wire.Versions{codec.DescribeGroups: {0, 5}}, nil,
			historyChoice{protocol: plan.ProtocolConsumer, skip: notListed + "; " + noClassic}},
	} {
		cfg := checkConfig{protocolSet: tc.set}
		cfg.hist.Options.Protocol = tc.asked
		var rep *conformance.Report
		if tc.versions != nil {
			rep = &conformance.Report{Versions: tc.versions, Held: tc.held}
		}
		if got := historyProtocol(cfg, rep); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
