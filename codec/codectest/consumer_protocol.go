package codectest

import (
	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Generators of the consumer protocol's structures (codec's
// ConsumerProtocolSubscription and ConsumerProtocolAssignment) at a
// version, in the form their decoder gives: non-nullable arrays nil when
// empty, UserData nil (null) or non-nil, and the fields a version lacks at
// their defaults (OwnedPartitions nil, GenerationId -1, RackId null).

var genTopicPartitions = rapid.Custom(func(t *rapid.T) codec.ConsumerProtocolTopicPartitions {
	return codec.ConsumerProtocolTopicPartitions{Topic: genString.Draw(t, "Topic"),
		Partitions: nilIfEmpty(rapid.SliceOfN(rapid.Int32(), 0, 6).Draw(t, "Partitions"))}
})

// genUserData draws null (nil) or non-nil, possibly empty, bytes.
var genUserData = rapid.Custom(func(t *rapid.T) []byte {
	if rapid.Bool().Draw(t, "UserDataNull") {
		return nil
	}
	b := rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, "UserData")
	if b == nil {
		b = []byte{}
	}
	return b
})

// ConsumerProtocolSubscription draws a subscription as it decodes at v (0
// to codec.ConsumerProtocolMaxVersion).
func ConsumerProtocolSubscription(v int16) *rapid.Generator[codec.ConsumerProtocolSubscription] {
	return rapid.Custom(func(t *rapid.T) codec.ConsumerProtocolSubscription {
		m := codec.ConsumerProtocolSubscription{
			Topics:       nilIfEmpty(rapid.SliceOfN(genString, 0, 5).Draw(t, "Topics")),
			UserData:     genUserData.Draw(t, "UserData"),
			GenerationId: -1,
			RackId:       codec.Null,
		}
		if v >= 1 {
			m.OwnedPartitions = genArray(t, "OwnedPartitions", 4, genTopicPartitions)
		}
		if v >= 2 {
			m.GenerationId = rapid.Int32().Draw(t, "GenerationId")
		}
		if v >= 3 {
			m.RackId = genNullableString.Draw(t, "RackId")
		}
		return m
	})
}

// ConsumerProtocolAssignment draws an assignment as it decodes at any
// version.
func ConsumerProtocolAssignment() *rapid.Generator[codec.ConsumerProtocolAssignment] {
	return rapid.Custom(func(t *rapid.T) codec.ConsumerProtocolAssignment {
		return codec.ConsumerProtocolAssignment{
			AssignedPartitions: genArray(t, "AssignedPartitions", 5, genTopicPartitions),
			UserData:           genUserData.Draw(t, "UserData"),
		}
	})
}
