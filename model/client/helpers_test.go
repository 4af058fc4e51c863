package client_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The client is tested alone: requests are built and responses written by
// hand from docs/PROTOCOL.md A1/A2. (Its tests against the reference
// coordinator are model's.)

const group1 = "g"

// seededReader is a deterministic io.Reader for client UUIDs.
func seededReader(seed uint64) io.Reader {
	var key [32]byte
	for i := range key {
		key[i] = byte(seed >> (8 * (i % 8)))
	}
	return rand.NewChaCha8(key)
}

// topicID is the id of the topic named by one letter in hbParts.
func topicID(name byte) codec.UUID { return codec.UUID{0: name, 15: 1} }

// hbParts renders "a0 a2 b1" (topic letter, partition number) as heartbeat
// TopicPartitions, topics in name order, partitions sorted. "" is the
// empty list.
func hbParts(s string) []codec.ConsumerGroupHeartbeatTopicPartitions {
	byTopic := map[byte][]int32{}
	var names []byte
	for _, f := range strings.Fields(s) {
		p, err := strconv.Atoi(f[1:])
		if err != nil {
			panic("bad partition " + f)
		}
		if byTopic[f[0]] == nil {
			names = append(names, f[0])
		}
		byTopic[f[0]] = append(byTopic[f[0]], int32(p))
	}
	slices.Sort(names)
	out := []codec.ConsumerGroupHeartbeatTopicPartitions{}
	for _, n := range names {
		ps := byTopic[n]
		slices.Sort(ps)
		out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: topicID(n), Partitions: ps})
	}
	return out
}

func nullable(s string) codec.NullableString {
	if s == "" {
		return codec.Null
	}
	return codec.Str(s)
}

func apiVersionsResponse(code codec.ErrorCode, keys []codec.ApiVersionsKey) *codec.ApiVersionsResponse {
	r := codec.NewApiVersionsResponse()
	r.ErrorCode, r.ApiKeys = code, keys
	return r
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
