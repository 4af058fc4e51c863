package conformance

import (
	"fmt"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The push cases of §B6: a client instance fetches its subscription
// (GetTelemetrySubscriptions v0 under a fresh id), then pushes at v0 with
// no metrics, once with one field wrong, or twice. Each first needs the
// broker to offer both APIs at v0 and answer the fetch NONE.

// telemetrySession is one client instance that fetched its subscription.
type telemetrySession struct {
	c   *pconn
	id  codec.UUID
	sub *codec.GetTelemetrySubscriptionsResponse
	at  time.Time // when the fetch was sent
}

// subscribe fetches a fresh instance's subscription, or ends the case with
// a skip when the broker cannot be asked.
func (p *probe) subscribe() telemetrySession {
	if !p.offers(codec.GetTelemetrySubscriptions, 0) || !p.offers(codec.PushTelemetry, 0) {
		panic(abort{skip("the broker does not offer GetTelemetrySubscriptions v0 and PushTelemetry v0")})
	}
	c := p.conn()
	id := newInstance()
	at := time.Now()
	r := c.do(codec.GetTelemetrySubscriptions, 0, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: id}).(*codec.GetTelemetrySubscriptionsResponse)
	if r.ErrorCode != codec.None {
		panic(abort{skip("the setup GetTelemetrySubscriptions was answered " + r.ErrorCode.String())})
	}
	return telemetrySession{c: c, id: id, sub: r, at: at}
}

// push sends PushTelemetry v0 under the session's id; edit changes the
// request from a valid push of no metrics, uncompressed (Kafka accepts an
// uncompressed push whatever AcceptedCompressionTypes lists: it leaves
// none out of the list and refuses only an id that names no codec).
func (s telemetrySession) push(edit func(*codec.PushTelemetryRequest)) codec.ErrorCode {
	req := &codec.PushTelemetryRequest{ClientInstanceId: s.id, SubscriptionId: s.sub.SubscriptionId, Metrics: []byte{}}
	if edit != nil {
		edit(req)
	}
	return s.c.do(codec.PushTelemetry, 0, req).(*codec.PushTelemetryResponse).ErrorCode
}

// within ends the case with a skip when the push interval may have run
// out since the fetch: the throttling a case expects holds only within it.
func (s telemetrySession) within(what string) {
	if pi := time.Duration(s.sub.PushIntervalMs) * time.Millisecond; pi <= 0 || time.Since(s.at) >= pi/2 {
		panic(abort{skip(fmt.Sprintf("%s came %v after the fetch, push interval %d ms: too late to expect throttling", what, time.Since(s.at).Round(time.Millisecond), s.sub.PushIntervalMs))})
	}
}

// casePushUnknownSubscription: a push naming another subscription id
// than the one the instance was given is UNKNOWN_SUBSCRIPTION_ID.
func casePushUnknownSubscription(p *probe) verdict {
	s := p.subscribe()
	code := s.push(func(r *codec.PushTelemetryRequest) { r.SubscriptionId++ })
	return want(code == codec.UnknownSubscriptionID, fmt.Sprintf("subscription %d; a push naming %d: %s", s.sub.SubscriptionId, s.sub.SubscriptionId+1, code), "UNKNOWN_SUBSCRIPTION_ID")
}

// casePushUnsupportedCompression: a push whose compression type id names
// no codec (5: Kafka's are none 0, gzip 1, snappy 2, lz4 3, zstd 4) is
// UNSUPPORTED_COMPRESSION_TYPE.
func casePushUnsupportedCompression(p *probe) verdict {
	s := p.subscribe()
	code := s.push(func(r *codec.PushTelemetryRequest) { r.CompressionType = 5 })
	return want(code == codec.UnsupportedCompressionType, "a push with compression type 5 (no codec): "+code.String(), "UNSUPPORTED_COMPRESSION_TYPE")
}

// casePushThrottled: a second push within the push interval is
// THROTTLING_QUOTA_EXCEEDED (the accepted first one started the clock).
func casePushThrottled(p *probe) verdict {
	s := p.subscribe()
	if code := s.push(nil); code != codec.None {
		return skip("the setup push of no metrics was answered " + code.String())
	}
	code := s.push(nil)
	s.within("the second push")
	return want(code == codec.ThrottlingQuotaExceeded, "a push NONE; a second at once: "+code.String(), "THROTTLING_QUOTA_EXCEEDED")
}

// caseGetThrottled: asking for the subscription again within the push
// interval is THROTTLING_QUOTA_EXCEEDED.
func caseGetThrottled(p *probe) verdict {
	s := p.subscribe()
	r := s.c.do(codec.GetTelemetrySubscriptions, 0, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: s.id}).(*codec.GetTelemetrySubscriptionsResponse)
	s.within("the second fetch")
	return want(r.ErrorCode == codec.ThrottlingQuotaExceeded, "a fetch NONE; a second at once: "+r.ErrorCode.String(), "THROTTLING_QUOTA_EXCEEDED")
}

// maxTooLargePush bounds the push casePushTooLarge makes: a broker that
// allows more than this (Kafka's telemetry.max.bytes is 1 MiB by default)
// is not sent a push over its limit.
const maxTooLargePush = 8 << 20

// casePushTooLarge: a push whose metrics are one byte over the
// TelemetryMaxBytes the fetch gave is TELEMETRY_TOO_LARGE (Kafka checks
// the size after the subscription id and the compression type, before it
// reads the metrics, so bytes of zeros do).
func casePushTooLarge(p *probe) verdict {
	s := p.subscribe()
	limit := s.sub.TelemetryMaxBytes
	if limit <= 0 || limit >= maxTooLargePush {
		return skip(fmt.Sprintf("the fetch gave TelemetryMaxBytes %d: a push over it would be 0 or above %d bytes", limit, maxTooLargePush))
	}
	code := s.push(func(r *codec.PushTelemetryRequest) { r.Metrics = make([]byte, limit+1) })
	return want(code == codec.TelemetryTooLarge, fmt.Sprintf("TelemetryMaxBytes %d; a push of %d bytes of metrics: %s", limit, limit+1, code), "TELEMETRY_TOO_LARGE")
}

// casePushAfterTerminating: a push after the instance's terminating push
// is INVALID_REQUEST (the instance said it was done).
func casePushAfterTerminating(p *probe) verdict {
	s := p.subscribe()
	if code := s.push(func(r *codec.PushTelemetryRequest) { r.Terminating = true }); code != codec.None {
		return skip("the setup terminating push of no metrics was answered " + code.String())
	}
	code := s.push(nil)
	return want(code == codec.InvalidRequest, "a terminating push NONE; a push after it: "+code.String(), "INVALID_REQUEST")
}
