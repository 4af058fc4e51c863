package impl

import (
	"hash/maphash"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
)

// telemetryClient is what the coordinator remembers of one client instance.
type telemetryClient struct {
	lastGet     int64 // time of the last successful Get; -1 none
	lastPush    int64 // time of the last successful Push; -1 none
	terminating bool
}

type teleShard struct {
	mu sync.Mutex
	m  map[codec.UUID]*telemetryClient
	_  [40]byte
}

func (c *Coordinator) teleShard(id codec.UUID) *teleShard {
	return &c.telemetry[c.teleShardIndex(id)]
}

// teleShardIndex is the index of id's telemetry shard.
func (c *Coordinator) teleShardIndex(id codec.UUID) uint64 {
	return maphash.Comparable(c.teleSeed, id) % nTeleShards
}

// getTelemetrySubscriptions follows the model's rules (docs/PROTOCOL.md §B6, A2).
func (c *Coordinator) getTelemetrySubscriptions(h *codec.RequestHeader, r *codec.GetTelemetrySubscriptionsRequest) *codec.GetTelemetrySubscriptionsResponse {
	version := h.RequestApiVersion
	zeroOK := c.mut.Has(MutZeroInstanceIDAccepted)
	var id codec.UUID
	if version >= 1 && !(version == 1 && c.mut.Has(MutGetV1ServedAsV0)) {
		if !h.ClientInstanceId.Valid || (!zeroOK && c.reservedID(h.ClientInstanceId.UUID)) {
			return &codec.GetTelemetrySubscriptionsResponse{ErrorCode: codec.InvalidRequest}
		}
		id = h.ClientInstanceId.UUID
	} else {
		id = r.ClientInstanceId
		if id.IsZero() && !zeroOK || !id.IsZero() && c.mut.Has(MutGetV0IDReplaced) {
			id = c.ids.next()
		}
	}
	s := c.teleShard(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := c.clock.Now()
	tc := s.m[id]
	pi := int64(c.cfg.Telemetry.PushIntervalMs)
	if tc != nil && tc.lastGet >= 0 && pi > 0 && now-tc.lastGet < pi {
		return &codec.GetTelemetrySubscriptionsResponse{ErrorCode: codec.ThrottlingQuotaExceeded}
	}
	if tc == nil {
		tc = &telemetryClient{lastGet: -1, lastPush: -1}
		if s.m == nil {
			s.m = map[codec.UUID]*telemetryClient{}
			c.teleUsed.Or(1 << c.teleShardIndex(id))
		}
		s.m[id] = tc
	}
	if !c.mut.Has(MutGetNotRecorded) {
		tc.lastGet = now
	}
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
	fail := func(code codec.ErrorCode) *codec.PushTelemetryResponse {
		return &codec.PushTelemetryResponse{ErrorCode: code}
	}
	var id codec.UUID
	if h.RequestApiVersion >= 1 {
		if !h.ClientInstanceId.Valid {
			return fail(codec.InvalidRequest)
		}
		id = h.ClientInstanceId.UUID
	} else {
		id = r.ClientInstanceId
	}
	zeroV1 := id.IsZero() && h.RequestApiVersion >= 1 && c.mut.Has(MutPushV1ZeroAccepted)
	if c.reservedID(id) && !c.mut.Has(MutZeroInstanceIDAccepted) && !zeroV1 {
		return fail(codec.InvalidRequest)
	}
	s := c.teleShard(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := c.clock.Now()
	tc := s.m[id]
	t := c.cfg.Telemetry
	switch {
	case tc != nil && tc.terminating:
		return fail(codec.InvalidRequest)
	case tc != nil && !r.Terminating && tc.lastPush >= 0 && t.PushIntervalMs > 0 && now-tc.lastPush < int64(t.PushIntervalMs):
		return fail(codec.ThrottlingQuotaExceeded)
	case tc == nil || r.SubscriptionId != t.SubscriptionID && !c.mut.Has(MutPushSubscriptionUnchecked):
		return fail(codec.UnknownSubscriptionID)
	case !acceptsCompression(t.AcceptedCompressionTypes, r.CompressionType) && !c.mut.Has(MutPushCompressionUnchecked):
		return fail(codec.UnsupportedCompressionType)
	case len(r.Metrics) > int(t.TelemetryMaxBytes) && !c.mut.Has(MutPushTooLargeAccepted):
		return fail(codec.TelemetryTooLarge)
	}
	if !c.mut.Has(MutPushNotRecorded) {
		tc.lastPush = now
	}
	tc.terminating = r.Terminating && !c.mut.Has(MutPushAfterTerminatingAccepted)
	return &codec.PushTelemetryResponse{}
}

// reservedID is isReservedUUID, but for MutTelemetryOneAccepted, which
// refuses only the zero UUID.
func (c *Coordinator) reservedID(u codec.UUID) bool {
	if c.mut.Has(MutTelemetryOneAccepted) {
		return u.IsZero()
	}
	return isReservedUUID(u)
}

func acceptsCompression(accepted []int8, ct int8) bool {
	for _, a := range accepted {
		if a == ct {
			return true
		}
	}
	return false
}
