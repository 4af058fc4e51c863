package driver

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The prober's classic joins carry a subscription a coordinator reads,
// and its undecodable variant one it cannot (A7.1/subscription-undecodable):
// a probe whose metadata read would make a member nobody removes.
func TestMixedJoinSubscriptions(t *testing.T) {
	var s codec.ConsumerProtocolSubscription
	if _, err := s.Decode(mixedJoin("g", "").Protocols[0].Metadata, codec.DecodeOptions{}); err != nil || len(s.Topics) != 1 || s.Topics[0] != "alpha" {
		t.Errorf("the prober's join subscription reads as %+v, %v; want topic alpha", s, err)
	}
	if _, err := s.Decode(truncatedSubscription(), codec.DecodeOptions{}); err == nil {
		t.Errorf("the truncated subscription read as %+v, want an error", s)
	}
}
