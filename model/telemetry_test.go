package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Telemetry (§B6, A2). The test subscription: id 7, push interval 30000,
// at most 8 bytes, compression none (0) or zstd (4).

var (
	clientA  = codec.UUID{0xaa, 15: 0xaa}
	oneUUID  = codec.UUID{15: 1}
	zeroUUID = codec.UUID{}
)

// subscription is the successful GetTelemetrySubscriptions response;
// instance is echoed at v0 only.
func subscription(instance codec.UUID) *codec.GetTelemetrySubscriptionsResponse {
	return &codec.GetTelemetrySubscriptionsResponse{
		ClientInstanceId: instance, SubscriptionId: 7, AcceptedCompressionTypes: []int8{0, 4},
		PushIntervalMs: 30000, TelemetryMaxBytes: 8, DeltaTemporality: true,
		RequestedMetrics: []string{"org.apache.kafka.consumer"},
	}
}

func getFailed(code codec.ErrorCode) *codec.GetTelemetrySubscriptionsResponse {
	return &codec.GetTelemetrySubscriptionsResponse{ErrorCode: code}
}

func pushed(code codec.ErrorCode) *codec.PushTelemetryResponse {
	return &codec.PushTelemetryResponse{ErrorCode: code}
}

// telemetry sends a telemetry request at version with the given header
// instance id (absent when !present) and, at v0, body id.
func (tc *coordTest) telemetry(version int16, header codec.NullableUUID, req codec.Message) codec.Message {
	tc.t.Helper()
	h := tc.header(req.Key(), version)
	h.ClientInstanceId = header
	return tc.sendWith(&h, req)
}

func get(tc *coordTest, version int16, header codec.NullableUUID, body codec.UUID) codec.Message {
	tc.t.Helper()
	return tc.telemetry(version, header, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: body})
}

type push struct {
	sub         int32
	terminating bool
	compression int8
	size        int
}

func (p push) request(body codec.UUID) *codec.PushTelemetryRequest {
	return &codec.PushTelemetryRequest{ClientInstanceId: body, SubscriptionId: p.sub, Terminating: p.terminating,
		CompressionType: p.compression, Metrics: make([]byte, p.size)}
}

var goodPush = push{sub: 7, size: 8}

func pushV1(tc *coordTest, id codec.UUID, p push) codec.Message {
	tc.t.Helper()
	return tc.telemetry(1, codec.SomeUUID(id), p.request(codec.UUID{}))
}

func TestGetTelemetrySubscriptions(t *testing.T) {
	t.Run("v1 takes the client instance id from the header and does not echo it", func(t *testing.T) {
		tc := newCoordTest(t)
		tc.want("the subscription", 1, get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), subscription(codec.UUID{}))
		tc.want("the same instance again within the push interval is throttled", 1,
			get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), getFailed(codec.ThrottlingQuotaExceeded))
	})
	for _, c := range []struct {
		name   string
		header codec.NullableUUID
	}{
		{"no client instance id in the header", codec.NullableUUID{}},
		{"the zero UUID in the header", codec.SomeUUID(zeroUUID)},
		{"the reserved UUID one in the header", codec.SomeUUID(oneUUID)},
	} {
		t.Run("v1 with "+c.name+" is INVALID_REQUEST", func(t *testing.T) {
			tc := newCoordTest(t)
			tc.want("INVALID_REQUEST", 1, get(tc, 1, c.header, codec.UUID{}), getFailed(codec.InvalidRequest))
		})
	}
	t.Run("v0 with the zero id gets an id the coordinator makes (Config.NewID)", func(t *testing.T) {
		tc := newCoordTest(t)
		tc.want("the made id is echoed", 0, get(tc, 0, codec.SomeUUID(clientA), zeroUUID), subscription(genID(1)))
		tc.want("a second old client gets the next id", 0, get(tc, 0, codec.NullableUUID{}, zeroUUID), subscription(genID(2)))
		tc.want("the made id is then a known instance (throttled)", 0, get(tc, 0, codec.NullableUUID{}, genID(1)), getFailed(codec.ThrottlingQuotaExceeded))
	})
	t.Run("v0 with a non-zero id keeps it as given, whatever the header says", func(t *testing.T) {
		tc := newCoordTest(t)
		tc.want("echoed", 0, get(tc, 0, codec.SomeUUID(genID(9)), clientA), subscription(clientA))
		tc.want("v0 and v1 name the same instance", 1, get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), getFailed(codec.ThrottlingQuotaExceeded))
	})
	t.Run("a Get is throttled until one push interval after the previous Get", func(t *testing.T) {
		tc := newCoordTest(t)
		tc.advance(1000)
		tc.want("first", 1, get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), subscription(codec.UUID{}))
		tc.advance(30999)
		tc.want("at 30999", 1, get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), getFailed(codec.ThrottlingQuotaExceeded))
		tc.advance(31000)
		tc.want("at 31000", 1, get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), subscription(codec.UUID{}))
		tc.want("another instance is not throttled", 1, get(tc, 1, codec.SomeUUID(genID(5)), codec.UUID{}), subscription(codec.UUID{}))
	})
}

func TestPushTelemetry(t *testing.T) {
	// subscribed: clientA fetched its subscription at time 0.
	subscribed := func(t *testing.T) *coordTest {
		tc := newCoordTest(t)
		tc.want("subscribed", 1, get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), subscription(codec.UUID{}))
		return tc
	}
	t.Run("v1 takes the id from the header: a good push is accepted", func(t *testing.T) {
		tc := subscribed(t)
		tc.want("accepted", 1, pushV1(tc, clientA, goodPush), pushed(codec.None))
	})
	t.Run("v0 takes the id from the body", func(t *testing.T) {
		tc := subscribed(t)
		tc.want("accepted", 0, tc.telemetry(0, codec.SomeUUID(genID(9)), goodPush.request(clientA)), pushed(codec.None))
	})
	for _, c := range []struct {
		name    string
		version int16
		header  codec.NullableUUID
		body    codec.UUID
	}{
		{"v1 with no id in the header", 1, codec.NullableUUID{}, clientA},
		{"v1 with the zero UUID in the header", 1, codec.SomeUUID(zeroUUID), codec.UUID{}},
		{"v1 with the reserved UUID one in the header", 1, codec.SomeUUID(oneUUID), codec.UUID{}},
		{"v0 with the zero UUID in the body", 0, codec.SomeUUID(clientA), zeroUUID},
		{"v0 with the reserved UUID one in the body", 0, codec.SomeUUID(clientA), oneUUID},
	} {
		t.Run(c.name+" is INVALID_REQUEST", func(t *testing.T) {
			tc := subscribed(t)
			tc.want("INVALID_REQUEST", c.version, tc.telemetry(c.version, c.header, goodPush.request(c.body)), pushed(codec.InvalidRequest))
		})
	}
	t.Run("a push from an instance that never fetched its subscription is UNKNOWN_SUBSCRIPTION_ID", func(t *testing.T) {
		tc := newCoordTest(t)
		tc.want("unknown", 1, pushV1(tc, clientA, goodPush), pushed(codec.UnknownSubscriptionID))
	})
	t.Run("single faults", func(t *testing.T) {
		for _, c := range []struct {
			name string
			p    push
			code codec.ErrorCode
		}{
			{"a wrong subscription id is UNKNOWN_SUBSCRIPTION_ID", push{sub: 8}, codec.UnknownSubscriptionID},
			{"a compression type not accepted is UNSUPPORTED_COMPRESSION_TYPE", push{sub: 7, compression: 1}, codec.UnsupportedCompressionType},
			{"a payload over TelemetryMaxBytes is TELEMETRY_TOO_LARGE", push{sub: 7, size: 9}, codec.TelemetryTooLarge},
			{"an accepted compression other than none is fine", push{sub: 7, compression: 4, size: 1}, codec.None},
		} {
			t.Run(c.name, func(t *testing.T) {
				tc := subscribed(t)
				tc.want(c.name, 1, pushV1(tc, clientA, c.p), pushed(c.code))
			})
		}
	})
	t.Run("pushes are throttled to one per push interval, terminating pushes exempt", func(t *testing.T) {
		tc := subscribed(t)
		tc.want("first push at 0", 1, pushV1(tc, clientA, goodPush), pushed(codec.None))
		tc.advance(29999)
		tc.want("at 29999", 1, pushV1(tc, clientA, goodPush), pushed(codec.ThrottlingQuotaExceeded))
		tc.advance(30000)
		tc.want("at 30000", 1, pushV1(tc, clientA, goodPush), pushed(codec.None))
		tc.want("a terminating push is never throttled", 1, pushV1(tc, clientA, push{sub: 7, terminating: true}), pushed(codec.None))
		tc.advance(90000)
		tc.want("after a terminating push every push is INVALID_REQUEST", 1, pushV1(tc, clientA, goodPush), pushed(codec.InvalidRequest))
	})
	t.Run("a refused push changes nothing", func(t *testing.T) {
		tc := subscribed(t)
		tc.want("too large, and terminating", 1, pushV1(tc, clientA, push{sub: 7, terminating: true, size: 9}), pushed(codec.TelemetryTooLarge))
		tc.want("not terminated, not throttled", 1, pushV1(tc, clientA, goodPush), pushed(codec.None))
	})
	// The order of §B6's list: reserved id, terminating, throttling,
	// subscription, compression, size. Each case breaks its rule and every
	// later one.
	t.Run("rule order", func(t *testing.T) {
		worst := push{sub: 8, compression: 1, size: 9}
		tc := subscribed(t)
		tc.want("a reserved id comes first", 0, tc.telemetry(0, codec.SomeUUID(clientA), worst.request(zeroUUID)), pushed(codec.InvalidRequest))
		tc.want("a first push", 1, pushV1(tc, clientA, goodPush), pushed(codec.None))
		tc.want("throttling comes before the subscription check", 1, pushV1(tc, clientA, worst), pushed(codec.ThrottlingQuotaExceeded))
		tc.advance(30000)
		tc.want("the subscription before the compression", 1, pushV1(tc, clientA, worst), pushed(codec.UnknownSubscriptionID))
		tc.want("the compression before the size", 1, pushV1(tc, clientA, push{sub: 7, compression: 1, size: 9}), pushed(codec.UnsupportedCompressionType))
		tc.want("a terminating push", 1, pushV1(tc, clientA, push{sub: 7, terminating: true}), pushed(codec.None))
		tc.want("terminated comes before throttling and the subscription", 1, pushV1(tc, clientA, worst), pushed(codec.InvalidRequest))
	})
}
