package main

import (
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/plan"
)

// classicRounds are the rounds (of 50 ms) check gives classic histories it
// chose itself when --rounds is not given: a classic client's 6 s session
// and 3-10 s rebalance timeouts need about ten seconds to show a
// rebalance, where the default 40 rounds are two.
const classicRounds = 200

// historyChoice is the group protocol the histories speak, and why check
// chose it or why they cannot run.
type historyChoice struct {
	protocol plan.Protocol
	// chosen says why check chose the classic protocol itself, in place
	// of the default consumer protocol ("": it did not).
	chosen string
	// skip says why the histories cannot run ("": they can).
	skip string
}

// historyProtocol is the protocol of the histories against the broker the
// cases saw (docs/PROTOCOL.md B13). Consumer (and mixed) histories need
// ConsumerGroupHeartbeat served: a default Kafka 2.3-3.6 does not list it,
// a default 3.7-3.9 lists it and answers UNSUPPORTED_VERSION. Against such
// a broker histories without --protocol run classic members instead
// (JoinGroup, SyncGroup, Heartbeat), and say so; histories whose protocol
// --protocol names and the broker does not serve SKIP with the reason
// (mixed, upgrade and rollback histories need both protocols served),
// never FAIL or hang on it. Nothing known of the broker (no survey):
// --protocol's, as asked.
func historyProtocol(cfg checkConfig, rep *conformance.Report) historyChoice {
	asked := cfg.hist.Options.Protocol
	c := historyChoice{protocol: asked}
	if rep == nil || rep.Versions == nil {
		return c
	}
	unserved := map[string]bool{}
	if rep.Held != nil {
		for _, u := range rep.Held.Unserved {
			name, _, _ := strings.Cut(u, " ")
			unserved[name] = true
		}
	}
	serves := func(k codec.APIKey) bool { return rep.Versions.Max(k) >= 0 && !unserved[k.String()] }
	classic := serves(codec.JoinGroup) && serves(codec.SyncGroup) && serves(codec.Heartbeat)
	consumer := serves(codec.ConsumerGroupHeartbeat)
	noConsumer := "the broker does not serve the consumer protocol (ConsumerGroupHeartbeat " +
		map[bool]string{true: "listed but answered UNSUPPORTED_VERSION", false: "not listed"}[unserved[codec.ConsumerGroupHeartbeat.String()]] + ")"
	const noClassic = "the broker does not serve the classic protocol (JoinGroup, SyncGroup and Heartbeat)"
	switch {
	case asked == plan.ProtocolClassic:
		if !classic {
			c.skip = noClassic
		}
	case consumer:
		if (asked == plan.ProtocolMixed || asked.Migrates()) && !classic {
			c.skip = noClassic
		}
	case !classic:
		c.skip = noConsumer + "; " + noClassic
	case !cfg.protocolSet:
		c.protocol = plan.ProtocolClassic
		c.chosen = noConsumer
	default:
		c.skip = noConsumer + "; without --protocol, or with --protocol classic, the histories run classic members"
	}
	return c
}
