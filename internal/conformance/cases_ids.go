package conformance

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The cases of the ids a request carries: a later request's own ClientId
// (A2) and the reserved client instance ids of the telemetry APIs (A2,
// §B6).

// caseLaterClientIDOwn: a connection opens with ClientId
// "ghostcheck-first"; a later join sends ClientId "ghostcheck-second".
// The join is attributed to the ClientId it sends (A2), as every Kafka
// release attributes every request.
func caseLaterClientIDOwn(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.connAs(codec.Str("ghostcheck-first"))
	c.describe(p.id("g")) // the connection's first request
	g, m := p.id("g"), p.id("m")
	req := p.joinReq(g, m)
	if p.known.Workaround(WorkaroundJoinRegex) {
		req = joinRegexEmpty(nil, req).(*codec.ConsumerGroupHeartbeatRequest)
	}
	h := c.header(codec.ConsumerGroupHeartbeat, p.hbv())
	h.ClientId = codec.Str("ghostcheck-second")
	resp, err := c.try(h, req)
	if err != nil {
		return fail(err.Error(), "a response")
	}
	if r := resp.(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != codec.None {
		return fail("setup join of "+short(m)+": "+hbString(r), "the setup join to succeed")
	}
	d := p.conn().describe(g)
	for _, mm := range d.Members {
		if mm.MemberId == m {
			return want(mm.ClientId == "ghostcheck-second", fmt.Sprintf("Describe shows ClientId %q for a later join that sent \"ghostcheck-second\"", mm.ClientId), `"ghostcheck-second", the ClientId the join sent`)
		}
	}
	return fail(describeString(d), "the joined member listed")
}

// reservedOne is the client instance id Kafka reserves besides the zero
// UUID (Uuid.METADATA_TOPIC_ID, 00...01): never a client's (§B6).
var reservedOne = codec.UUID{15: 1}

// caseTelemetryHeaderID sends a telemetry request at v1 whose header
// carries id: a reserved id is INVALID_REQUEST (A2, §B6).
func caseTelemetryHeaderID(key codec.APIKey, id codec.UUID) func(p *probe) verdict {
	return func(p *probe) verdict {
		if !p.offers(key, 1) {
			return skip(p.withoutKIP1313(key))
		}
		c := p.conn()
		h := c.header(key, 1)
		h.ClientInstanceId = codec.SomeUUID(id)
		var req codec.Message = &codec.GetTelemetrySubscriptionsRequest{}
		if key == codec.PushTelemetry {
			req = &codec.PushTelemetryRequest{Metrics: []byte{}}
		}
		resp, err := c.try(h, req)
		if err != nil {
			return fail(err.Error(), "INVALID_REQUEST")
		}
		code := codec.None
		switch r := resp.(type) {
		case *codec.GetTelemetrySubscriptionsResponse:
			code = r.ErrorCode
		case *codec.PushTelemetryResponse:
			code = r.ErrorCode
		}
		return want(code == codec.InvalidRequest, fmt.Sprintf("%v v1 with header id %s: %s", key, id, code), "INVALID_REQUEST")
	}
}

// casePushReservedV0 pushes at v0 with the reserved id 00...01 in the
// body, with no metrics: INVALID_REQUEST, before any other check (§B6).
func casePushReservedV0(p *probe) verdict {
	if !p.offers(codec.PushTelemetry, 0) {
		return skip("the broker does not offer PushTelemetry v0")
	}
	r := p.conn().do(codec.PushTelemetry, 0, &codec.PushTelemetryRequest{ClientInstanceId: reservedOne, Metrics: []byte{}}).(*codec.PushTelemetryResponse)
	return want(r.ErrorCode == codec.InvalidRequest, fmt.Sprintf("PushTelemetry v0 with id %s: %s", reservedOne, r.ErrorCode), "INVALID_REQUEST")
}
