// Package kfaketest starts kfake, franz-go's in-process fake Kafka cluster,
// as a peer nobody here wrote, for tests. Only _test.go files import it:
// kfake is a test-only dependency and must not reach the command (`go list
// -deps ./cmd/ghostcheck` lists no kfake; TestOnlyTestsImportIt holds it).
//
// What a test using kfake should know:
//   - kfake runs inside the test binary: a request that crashes it (finding
//     K12, an unknown api key) kills the binary, so such a probe runs in a
//     child process (internal/conformance's TestKfakeUnknownAPIKeyIsolated);
//   - it listens on 127.0.0.1, and a cluster is closed when its test ends;
//   - go.mod requires franz-go v1.22.3 and kmsg v1.15.1 explicitly: with
//     kfake alone, `go mod tidy` picks older ones that kfake does not
//     compile with;
//   - it serves classic and consumer groups but no mixed group: a
//     ConsumerGroupHeartbeat to a classic group that has members is
//     GROUP_ID_NOT_FOUND;
//   - it answers OffsetFetch for a group it never saw GROUP_ID_NOT_FOUND:
//     consumers whose group another coordinator runs need it made first
//     (SeedGroup).
package kfaketest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Start starts a kfake cluster with opts (kfake.NumBrokers,
// kfake.SeedTopics, GroupTimers, ...) and closes it when the test ends.
func Start(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("starting kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// GroupTimers sets the brokers' KIP-848 group timers: the session timeout
// and heartbeat interval a consumer group's members get
// (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms).
func GroupTimers(session, heartbeat time.Duration) kfake.Opt {
	return kfake.BrokerConfigs(map[string]string{
		"group.consumer.session.timeout.ms":    strconv.FormatInt(session.Milliseconds(), 10),
		"group.consumer.heartbeat.interval.ms": strconv.FormatInt(heartbeat.Milliseconds(), 10),
	})
}

// SeedGroup makes group on the kfake broker at addr with offset 0
// committed on each of topic's partitions, as an admin does (generation
// -1), so that kfake answers its OffsetFetch while another coordinator
// runs the group; and returns the topic's id, by which that coordinator
// names its partitions.
func SeedGroup(t testing.TB, addr, group, topic string) codec.UUID {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	meta.Topics = append(meta.Topics, mt)
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil || len(mresp.Topics) != 1 || mresp.Topics[0].ErrorCode != 0 {
		t.Fatalf("kfake's Metadata for %s: %v %+v", topic, err, mresp)
	}
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation = group, -1
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic, ct.TopicID = topic, mresp.Topics[0].TopicID
	for _, p := range mresp.Topics[0].Partitions {
		cp := kmsg.NewOffsetCommitRequestTopicPartition()
		cp.Partition = p.Partition
		ct.Partitions = append(ct.Partitions, cp)
	}
	commit.Topics = append(commit.Topics, ct)
	cresp, err := commit.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range cresp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorCode != 0 {
				t.Fatalf("kfake's OffsetCommit of %s %d: error %d", rt.Topic, rp.Partition, rp.ErrorCode)
			}
		}
	}
	return codec.UUID(mresp.Topics[0].TopicID)
}
