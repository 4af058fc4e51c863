// Package testreq builds the group requests tests send, written the way a
// KIP-848 consumer writes them, so that the tests of model, impl, check and
// the servers state a request in the same words. Only tests import it.
//
// Owned partitions are written as a member would list them: "a0 a2 b1" is
// partitions 0 and 2 of topic a and partition 1 of topic b (a topic name,
// then the partition number); "" is the empty list (the member owns
// nothing) and "-" is null (the member does not report what it owns). A
// topic's id is model.TopicIDFor of its name, as every test cluster here
// configures its topics.
package testreq

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// Join is member's first ConsumerGroupHeartbeat to group (epoch 0):
// subscribed to topics, owning nothing, with a rebalance timeout of
// rebalanceMs.
func Join(group, member string, rebalanceMs int32, topics ...string) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{
		GroupId: group, MemberId: member, MemberEpoch: 0, RebalanceTimeoutMs: rebalanceMs,
		SubscribedTopicNames: append([]string{}, topics...),
		TopicPartitions:      []codec.ConsumerGroupHeartbeatTopicPartitions{},
	}
}

// StaticJoin is Join by a static member holding instance (KIP-345).
func StaticJoin(group, member, instance string, rebalanceMs int32, topics ...string) *codec.ConsumerGroupHeartbeatRequest {
	r := Join(group, member, rebalanceMs, topics...)
	r.InstanceId = codec.Str(instance)
	return r
}

// Heartbeat is a member's heartbeat at epoch that changes nothing but the
// partitions it reports owning (see the package doc for owned).
func Heartbeat(group, member string, epoch int32, owned string) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1,
		TopicPartitions: Owned(owned)}
}

// StaticHeartbeat is Heartbeat by a static member holding instance.
func StaticHeartbeat(group, member, instance string, epoch int32, owned string) *codec.ConsumerGroupHeartbeatRequest {
	r := Heartbeat(group, member, epoch, owned)
	r.InstanceId = codec.Str(instance)
	return r
}

// Leave is member leaving group: at epoch -1 it leaves for good; a static
// member (instance not "") at epoch -2 leaves for now, its instance kept
// for it (KIP-848's static leave).
func Leave(group, member string, epoch int32, instance string) *codec.ConsumerGroupHeartbeatRequest {
	r := &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1}
	if instance != "" {
		r.InstanceId = codec.Str(instance)
	}
	return r
}

// Describe is a ConsumerGroupDescribe of groups.
func Describe(groups ...string) *codec.ConsumerGroupDescribeRequest {
	return &codec.ConsumerGroupDescribeRequest{GroupIds: append([]string{}, groups...)}
}

// Owned is the heartbeat TopicPartitions the notation s says ("a0 a2 b1",
// "" for none, "-" for null): topics in name order, partitions ascending.
// It panics on a word that is not a topic name followed by a number, a
// mistake in the test that wrote it.
func Owned(s string) []codec.ConsumerGroupHeartbeatTopicPartitions {
	if s == "-" {
		return nil
	}
	byTopic := map[string][]int32{}
	var names []string
	for _, f := range strings.Fields(s) {
		topic := strings.TrimRight(f, "0123456789")
		p, err := strconv.ParseInt(f[len(topic):], 10, 32)
		if topic == "" || err != nil {
			panic(fmt.Sprintf("testreq: %q is not a topic name followed by a partition number", f))
		}
		if _, seen := byTopic[topic]; !seen {
			names = append(names, topic)
		}
		byTopic[topic] = append(byTopic[topic], int32(p))
	}
	slices.Sort(names)
	out := []codec.ConsumerGroupHeartbeatTopicPartitions{}
	for _, t := range names {
		ps := byTopic[t]
		slices.Sort(ps)
		out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: model.TopicIDFor(t), Partitions: ps})
	}
	return out
}
