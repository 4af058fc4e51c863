package model

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// telemetryClient is what the coordinator remembers of one client instance
// (KIP-714's ClientMetricsManager, reduced to the rules that decide error
// codes).
type telemetryClient struct {
	lastGet     int64 // logical time of the last successful Get; -1 none
	lastPush    int64 // logical time of the last successful Push; -1 none
	terminating bool  // a terminating push was accepted
}

// Telemetry rules (docs/PROTOCOL.md §B6, A2), checked in this order:
//
// GetTelemetrySubscriptions:
//   - v1: the id comes from the request header (KIP-1313); absent or
//     reserved (zero, one) → INVALID_REQUEST.
//   - v0: a zero id in the body makes the coordinator assign one; any
//     other id is kept as given.
//   - a Get within PushIntervalMs of the instance's previous Get →
//     THROTTLING_QUOTA_EXCEEDED.
//
// PushTelemetry, in the order §B6 lists (which is also Kafka's):
//   - the id (header at v1, body at v0) absent or reserved → INVALID_REQUEST;
//   - a push after an accepted terminating push → INVALID_REQUEST;
//   - a non-terminating push within PushIntervalMs of the previous accepted
//     push → THROTTLING_QUOTA_EXCEEDED;
//   - an instance that never fetched its subscription, or a wrong
//     SubscriptionId → UNKNOWN_SUBSCRIPTION_ID;
//   - a compression type not accepted → UNSUPPORTED_COMPRESSION_TYPE;
//   - a payload over TelemetryMaxBytes → TELEMETRY_TOO_LARGE.
//
// A refused request changes nothing, and only accepted requests count for
// throttling (Kafka also starts the push clock, and marks a terminating
// instance, when a later check refuses the push; §B6 does not say, and the
// model keeps every error free of effects). The payload itself is not
// decoded, so INVALID_RECORD never occurs.

func (c *Coordinator) getTelemetrySubscriptions(h *codec.RequestHeader, r *codec.GetTelemetrySubscriptionsRequest) *codec.GetTelemetrySubscriptionsResponse {
	version := h.RequestApiVersion
	var id codec.UUID
	if version >= 1 {
		if !h.ClientInstanceId.Valid || rules.IsReservedUUID(h.ClientInstanceId.UUID) {
			c.hit("B6/get-v1-invalid-id")
			return &codec.GetTelemetrySubscriptionsResponse{ErrorCode: codec.InvalidRequest}
		}
		c.hit("B6/get-v1-header-id")
		id = h.ClientInstanceId.UUID
	} else {
		id = r.ClientInstanceId
		if id.IsZero() {
			c.hit("B6/get-v0-id-assigned")
			id = c.cfg.NewID()
		} else {
			c.hit("B6/get-v0-id-kept")
		}
	}
	tc := c.telemetry[id]
	pi := int64(c.cfg.Telemetry.PushIntervalMs)
	if tc != nil && tc.lastGet >= 0 && pi > 0 && c.now-tc.lastGet < pi {
		c.hit("B6/get-throttled")
		return &codec.GetTelemetrySubscriptionsResponse{ErrorCode: codec.ThrottlingQuotaExceeded}
	}
	if tc == nil {
		tc = &telemetryClient{lastGet: -1, lastPush: -1}
		if c.telemetry == nil { // a clone of a coordinator with none has no map
			c.telemetry = map[codec.UUID]*telemetryClient{}
		}
		c.telemetry[id] = tc
	}
	tc.lastGet = c.now
	t := c.cfg.Telemetry
	resp := &codec.GetTelemetrySubscriptionsResponse{
		SubscriptionId:           t.SubscriptionID,
		AcceptedCompressionTypes: append([]int8(nil), t.AcceptedCompressionTypes...),
		PushIntervalMs:           t.PushIntervalMs,
		TelemetryMaxBytes:        t.TelemetryMaxBytes,
		DeltaTemporality:         t.DeltaTemporality,
		RequestedMetrics:         append([]string(nil), t.RequestedMetrics...),
	}
	if version == 0 {
		resp.ClientInstanceId = id
	}
	return resp
}

func (c *Coordinator) pushTelemetry(h *codec.RequestHeader, r *codec.PushTelemetryRequest) *codec.PushTelemetryResponse {
	fail := func(clause Clause, code codec.ErrorCode) *codec.PushTelemetryResponse {
		c.hit(clause)
		return &codec.PushTelemetryResponse{ErrorCode: code}
	}
	var id codec.UUID
	if h.RequestApiVersion >= 1 {
		if !h.ClientInstanceId.Valid {
			return fail("B6/push-invalid-id", codec.InvalidRequest)
		}
		id = h.ClientInstanceId.UUID
	} else {
		id = r.ClientInstanceId
	}
	if rules.IsReservedUUID(id) {
		return fail("B6/push-invalid-id", codec.InvalidRequest)
	}
	tc := c.telemetry[id]
	t := c.cfg.Telemetry
	switch {
	case tc != nil && tc.terminating:
		return fail("B6/push-after-terminating", codec.InvalidRequest)
	case tc != nil && !r.Terminating && tc.lastPush >= 0 && t.PushIntervalMs > 0 && c.now-tc.lastPush < int64(t.PushIntervalMs):
		return fail("B6/push-throttled", codec.ThrottlingQuotaExceeded)
	case tc == nil || r.SubscriptionId != t.SubscriptionID:
		return fail("B6/push-unknown-subscription", codec.UnknownSubscriptionID)
	case !acceptsCompression(t.AcceptedCompressionTypes, r.CompressionType):
		return fail("B6/push-unsupported-compression", codec.UnsupportedCompressionType)
	case len(r.Metrics) > int(t.TelemetryMaxBytes):
		return fail("B6/push-too-large", codec.TelemetryTooLarge)
	}
	c.hit("B6/push-accepted")
	tc.lastPush = c.now
	tc.terminating = r.Terminating
	return &codec.PushTelemetryResponse{}
}

func acceptsCompression(accepted []int8, ct int8) bool {
	for _, a := range accepted {
		if a == ct {
			return true
		}
	}
	return false
}
