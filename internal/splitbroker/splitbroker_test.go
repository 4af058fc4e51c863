package splitbroker_test

import (
	"encoding/binary"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/splitbroker"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fetchKey is Fetch's api key, which codec does not name (it reads no
// Fetch).
const fetchKey codec.APIKey = 1

// start is a split broker in front of ghostcheck's coordinator (alpha, 6
// partitions) and a one-broker kfake holding alpha, and the coordinator.
func start(t *testing.T) (*splitbroker.Broker, *impl.Coordinator) {
	t.Helper()
	cluster := kfaketest.Start(t, kfake.SeedTopics(6, "alpha"), kfake.NumBrokers(1))
	coord := impl.New(impl.Config{Topics: []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}},
		SessionTimeoutMs: 10000, HeartbeatIntervalMs: 500})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return splitbroker.Start(t, addr, cluster.ListenAddrs()[0]), coord
}

func dial(t *testing.T, addr string) (*wire.Conn, *wire.Headers, wire.Versions) {
	t.Helper()
	w := servertest.Dial(t, addr)
	hm, err := wire.NewHeaders(codec.Str("split-test"), codec.UUID{7})
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Negotiate(hm, wire.NegotiateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w, hm, n.Versions
}

// The merged ApiVersions: each group api at the coordinator's range, the
// rest at kfake's (Fetch, Metadata), ApiVersions capped at what codec
// reads; and each request answered by its side: a join by the
// coordinator, Metadata by kfake.
func TestRoutesAndMerges(t *testing.T) {
	b, coord := start(t)
	w, hm, vs := dial(t, b.Addr())
	for _, k := range coord.AdvertisedVersions() {
		if !splitbroker.GroupAPIs[k.ApiKey] {
			continue
		}
		if got := vs[k.ApiKey]; got != [2]int16{k.MinVersion, k.MaxVersion} {
			t.Errorf("%v: v%d-v%d, the coordinator's v%d-v%d", k.ApiKey, got[0], got[1], k.MinVersion, k.MaxVersion)
		}
	}
	if !vs.Offers(codec.Metadata, 1) || !vs.Offers(fetchKey, 4) {
		t.Errorf("kfake's Metadata and Fetch missing from the merged ranges: %v", vs)
	}
	if got := vs.Max(codec.ApiVersions); got > codec.Lookup(codec.ApiVersions).MaxVersion {
		t.Errorf("ApiVersions up to v%d, above what codec reads", got)
	}
	join := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "split-member-1", RebalanceTimeoutMs: 30000,
		SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	resp, err := w.RoundTrip(hm.Next(codec.ConsumerGroupHeartbeat, 1), join)
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != codec.None || r.MemberEpoch != 1 {
		t.Fatalf("join through the split broker: %+v", r)
	}
	mv, err := vs.Pick(codec.Metadata, 1, codec.Lookup(codec.Metadata).MaxVersion)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = w.RoundTrip(hm.Next(codec.Metadata, mv), &codec.MetadataRequest{Topics: []codec.MetadataRequestTopic{{Name: codec.Str("alpha")}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.(*codec.MetadataResponse); len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 6 || len(r.Brokers) != 1 {
		t.Fatalf("kfake's Metadata through the split broker: %+v", r)
	}
}

// An ApiVersions version codec cannot read gets KIP-511's answer:
// UNSUPPORTED_VERSION in a v0 body naming the version to retry at.
func TestApiVersionsTooNew(t *testing.T) {
	b, _ := start(t)
	c, err := net.DialTimeout("tcp", b.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	v := codec.Lookup(codec.ApiVersions).MaxVersion + 1
	// Header v2 (key, version, correlation id 9, null ClientId, no
	// tags), then a flexible body of two empty strings and no tags.
	req := []byte{0, 0, 0, 0, 0, 18, 0, byte(v), 0, 0, 0, 9, 0xff, 0xff, 0, 1, 1, 0}
	binary.BigEndian.PutUint32(req, uint32(len(req)-4))
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	frame, err := codec.ReadFrame(c, nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	h, m, err := codec.DecodeResponse(frame, codec.ApiVersions, 0, codec.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := m.(*codec.ApiVersionsResponse)
	want := []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: v - 1}}
	if h.CorrelationId != 9 || r.ErrorCode != codec.UnsupportedVersion || !sameKeys(r.ApiKeys, want) {
		t.Fatalf("ApiVersions v%d: correlation %d, %+v; want UNSUPPORTED_VERSION naming v%d", v, h.CorrelationId, r, v-1)
	}
}

// sameKeys compares ranges, ignoring unknown tags (none here).
func sameKeys(a, b []codec.ApiVersionsKey) bool {
	return slices.EqualFunc(a, b, func(x, y codec.ApiVersionsKey) bool {
		return x.ApiKey == y.ApiKey && x.MinVersion == y.MinVersion && x.MaxVersion == y.MaxVersion
	})
}

// MergeApiVersions, answer by answer.
func TestMergeApiVersions(t *testing.T) {
	key := func(k codec.APIKey, lo, hi int16) codec.ApiVersionsKey {
		return codec.ApiVersionsKey{ApiKey: k, MinVersion: lo, MaxVersion: hi}
	}
	for _, tc := range []struct {
		name        string
		rest, group *codec.ApiVersionsResponse
		want        *codec.ApiVersionsResponse
	}{{
		name:  "group ranges replace the full broker's; a group api only it offers is dropped",
		rest:  &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{key(fetchKey, 4, 17), key(codec.JoinGroup, 0, 9), key(codec.ConsumerGroupDescribe, 0, 1), key(codec.ApiVersions, 0, 4)}},
		group: &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{key(codec.JoinGroup, 2, 7), key(codec.ApiVersions, 0, 3)}},
		want:  &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{key(fetchKey, 4, 17), key(codec.JoinGroup, 2, 7), key(codec.ApiVersions, 0, 4)}},
	}, {
		name:  "a group api only the group side offers is added",
		rest:  &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{key(codec.Metadata, 0, 12)}},
		group: &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{key(codec.ConsumerGroupHeartbeat, 0, 1), key(codec.PushTelemetry, 0, 0)}},
		want:  &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{key(codec.Metadata, 0, 12), key(codec.ConsumerGroupHeartbeat, 0, 1)}},
	}, {
		name:  "the full broker's error answer passes as it came",
		rest:  &codec.ApiVersionsResponse{ErrorCode: codec.UnsupportedVersion, ApiKeys: []codec.ApiVersionsKey{key(codec.ApiVersions, 0, 2)}},
		group: &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{key(codec.JoinGroup, 0, 9)}},
		want:  &codec.ApiVersionsResponse{ErrorCode: codec.UnsupportedVersion, ApiKeys: []codec.ApiVersionsKey{key(codec.ApiVersions, 0, 2)}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			const v = 3
			enc := func(r *codec.ApiVersionsResponse) []byte {
				b, err := codec.AppendResponse(nil, 5, v, r)
				if err != nil {
					t.Fatal(err)
				}
				return b[4:]
			}
			out, err := splitbroker.MergeApiVersions(enc(tc.rest), enc(tc.group), 5, v)
			if err != nil {
				t.Fatal(err)
			}
			h, m, err := codec.DecodeResponse(out, codec.ApiVersions, v, codec.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := m.(*codec.ApiVersionsResponse)
			if h.CorrelationId != 5 || got.ErrorCode != tc.want.ErrorCode || !sameKeys(got.ApiKeys, tc.want.ApiKeys) {
				t.Errorf("merged: correlation %d, %+v; want %+v", h.CorrelationId, got, tc.want)
			}
		})
	}
	if _, err := splitbroker.MergeApiVersions([]byte{0, 0}, []byte{0, 0}, 1, 3); err == nil {
		t.Error("an undecodable answer merged without an error")
	}
}
