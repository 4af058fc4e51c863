package rules_test

import (
	"errors"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// CheckRequestHeader must catch each way a header can break KIP-1313.
func TestCheckRequestHeaderRejects(t *testing.T) {
	own := codec.UUID{1, 2, 3}
	good := func() codec.RequestHeader {
		return codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientInstanceId: codec.SomeUUID(own)}
	}
	for _, c := range []struct {
		name  string
		h     func() codec.RequestHeader
		first bool
		rule  string
	}{
		{"header v2 without the instance id", func() codec.RequestHeader { h := good(); h.ClientInstanceId = codec.NullableUUID{}; return h }, false, "ClientInstanceIDInHeader"},
		{"header v2 with the zero UUID", func() codec.RequestHeader { h := good(); h.ClientInstanceId = codec.SomeUUID(codec.UUID{}); return h }, false, "NoZeroUUIDs"},
		{"header v2 with another client's id", func() codec.RequestHeader { h := good(); h.ClientInstanceId = codec.SomeUUID(codec.UUID{9}); return h }, false, "ClientInstanceIDInHeader"},
		{"a first request without ClientId", good, true, "ClientIDOnFirstRequest"},
		{"a first request with another ClientId", func() codec.RequestHeader { h := good(); h.ClientId = codec.Str("other"); return h }, true, "ClientIDOnFirstRequest"},
		{"a later request with a ClientId", func() codec.RequestHeader { h := good(); h.ClientId = codec.Str("app"); return h }, false, "ClientIDOnFirstRequest"},
	} {
		h := c.h()
		var v *rules.Violation
		if err := rules.CheckRequestHeader(&h, own, "app", c.first); !errors.As(err, &v) || v.Rule != c.rule {
			t.Errorf("%s: %v, want a %s violation", c.name, err, c.rule)
		}
	}
	h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 3, ClientId: codec.Str("app")}
	if err := rules.CheckRequestHeader(&h, own, "app", true); err != nil {
		t.Errorf("a header v1 cannot carry the instance id: %v", err)
	}
}
