package conformance

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Cases lists every case, in the order of docs/PROTOCOL.md (the risky
// framing cases last).
func Cases() []Case {
	var out []Case
	for _, section := range [][]Case{casesA1(), casesA2(), casesA3(), casesA5(), casesB42(), casesB44(), casesB5(), casesB6(), casesB7(), casesClassic(), casesClassicJoin(), casesMixed(), casesCluster(), casesB11()} {
		out = append(out, section...)
	}
	return out
}

// Sources that many cases share, as docs/PROTOCOL.md's rows write them.
const (
	srcKafka40     = "Kafka 4.0"
	srcKIP1082     = "KIP-1082, Kafka 4.0"
	srcKIP1313     = "KIP-1313, KIP accepted, not shipped"
	srcKIP1313Code = "KIP-1313, KIP accepted, not shipped; the code is ghostcheck's"
	srcPR23542     = "open PR (apache/kafka#23542), in no release"
	srcKAFKA18188  = "Kafka 4.0 (KAFKA-18188)"
	srcEvery       = "every Kafka release"
	srcKIP345      = "KIP-345, Kafka 2.4"
	srcKIP345On40  = "KIP-345; Kafka 4.0"
	srcKIP714      = "KIP-714, Kafka 3.7"
)

// casesA1: KIP-1082.
func casesA1() []Case {
	return []Case{
		{Name: "A1/v1-join-empty-member-id", Source: srcKIP1082, Rule: "ConsumerGroupHeartbeat v1 join with MemberId \"\" is INVALID_REQUEST and makes no member", run: caseV1Empty("")},
		{Name: "A1/v1-join-blank-member-id", Source: srcKIP1082, Rule: "a whitespace-only MemberId counts as empty at v1: INVALID_REQUEST, no member", run: caseV1Empty("   ")},
		{Name: "A1/v1-heartbeat-empty-member-id", Source: srcKIP1082, Rule: "an empty MemberId on any v1 heartbeat (epoch > 0) is INVALID_REQUEST", run: caseV1HeartbeatEmpty},
		{Name: "A1/v0-join-empty-member-id", Source: "KIP-848, Kafka 4.0", Rule: "v0 join with MemberId \"\": the broker makes an id (non-empty, not the zero UUID)", run: caseV0Generated},
		{Name: "A1/retried-join-same-member", Source: "KAFKA-19233, trunk only (merged 2026-01; release unverified)", Rule: "a repeated join (epoch 0) with an id already in the group is accepted in place: one member, epoch kept", run: caseRetriedJoin(false)},
		{Name: "A1/static-retried-join-same-member", Source: srcPR23542, Rule: "a static member's repeated join with its own id and instance is accepted in place (shipped Kafka: UNRELEASED_INSTANCE_ID)", run: caseRetriedJoin(true)},
		{Name: "A1/static-join-other-member-unreleased", Source: "KIP-848, Kafka 4.0", Rule: "a join by another member id for an instance held by an active member is UNRELEASED_INSTANCE_ID", run: caseUnreleased},
		{Name: "A1/join-existing-member-other-instance", Source: srcPR23542, Rule: "a join naming a member id in the group with a different instance id is INVALID_REQUEST", run: caseOtherInstance},
		{Name: "A1/member-id-any-string", Source: srcKafka40, Rule: "the broker does not check the member id's format: any non-blank string joins", run: caseAnyString},
	}
}

// casesA2: KIP-1313.
func casesA2() []Case {
	return []Case{
		{Name: "A2/first-clientid-remembered", Source: srcKIP1313, Rule: "a connection's first ClientId is used for later requests that send null (Describe shows it)", run: caseClientIDRemembered},
		{Name: "A2/null-first-clientid-reads-empty", Source: srcEvery, Rule: "a null ClientId on a connection's first request reads as \"\"", run: caseNullFirstClientID},
		{Name: "A2/later-clientid-keeps-first", Source: srcKIP1313, Rule: "a later request sending a ClientId does not replace the connection's first", run: caseLaterClientID},
		{Name: "A2/later-clientid-attributed", Source: srcEvery, Rule: "a later request that sends a ClientId is attributed to the ClientId it sends (Describe shows it)", run: caseLaterClientIDOwn},
		{Name: "A2/header-tags-ignorable", Source: "KIP-482 (tagged fields), Kafka 2.4", Rule: "request header v2 tag 0 (client instance id) and unknown tags are accepted and ignored", run: caseHeaderTags},
		{Name: "A2/telemetry-v1-no-instance-id", Source: srcKIP1313Code, Rule: "GetTelemetrySubscriptions v1 without a header client instance id is INVALID_REQUEST", run: caseTelemetryV1(false)},
		{Name: "A2/telemetry-v1-zero-instance-id", Source: srcKIP1313Code, Rule: "GetTelemetrySubscriptions v1 whose header carries the zero UUID is INVALID_REQUEST", run: caseTelemetryV1(true)},
		{Name: "A2/telemetry-v1-reserved-instance-id", Source: srcKIP1313Code, Rule: "GetTelemetrySubscriptions v1 whose header carries the reserved id 00...01 is INVALID_REQUEST", run: caseTelemetryHeaderID(codec.GetTelemetrySubscriptions, reservedOne)},
		{Name: "A2/push-v1-zero-instance-id", Source: srcKIP1313Code, Rule: "PushTelemetry v1 whose header carries the zero UUID is INVALID_REQUEST", run: caseTelemetryHeaderID(codec.PushTelemetry, codec.UUID{})},
		{Name: "A2/telemetry-v1-header-id", Source: srcKIP1313, Rule: "GetTelemetrySubscriptions v1 takes the client instance id from the header: NONE", run: caseTelemetryV1Header},
		{Name: "A2/telemetry-v0-id-echoed", Source: "KIP-714, Kafka 3.7", Rule: "GetTelemetrySubscriptions v0 with a non-zero id keeps and echoes it", run: caseTelemetryV0(false)},
		{Name: "A2/telemetry-v0-zero-id-assigned", Source: "KIP-714, Kafka 3.7", Rule: "GetTelemetrySubscriptions v0 with the zero id gets a broker-made, non-zero id", run: caseTelemetryV0(true)},
	}
}

// casesA3: KIP-345's LeaveGroup on a consumer group (A3's table, A3.1,
// A3.2).
func casesA3() []Case {
	return []Case{
		{Name: "A3/admin-removal-by-instance", Source: "KIP-345, Kafka 2.4; consumer groups Kafka 4.0", Rule: "LeaveGroup v3+ {MemberId \"\", held instance}: the static member is removed, NONE", run: caseAdminRemoval},
		{Name: "A3/unknown-instance", Source: srcKIP345, Rule: "LeaveGroup v3+ {\"\", unknown instance}: UNKNOWN_MEMBER_ID for the member, top-level NONE", run: caseLGOne(lgUnknownInstance)},
		{Name: "A3/empty-member-and-instance", Source: srcKIP345, Rule: "LeaveGroup v3+ {\"\", null}: UNKNOWN_MEMBER_ID", run: caseLGOne(lgEmptyBoth)},
		{Name: "A3/instance-held-by-other-member", Source: "KIP-345, Kafka 2.3 (KAFKA-8225)", Rule: "LeaveGroup v3+ {other id, held instance}: FENCED_INSTANCE_ID", run: caseLGOne(lgFenced)},
		{Name: "A3/remove-own-id-with-instance", Source: srcKAFKA18188, Rule: "LeaveGroup v3+ {holder's member id, its instance}: the member is removed, NONE", run: caseLGOne(lgOwn)},
		{Name: "A3/remove-by-member-id", Source: srcKAFKA18188, Rule: "LeaveGroup v3+ {a dynamic member's id, null}: the member is removed, NONE", run: caseLGEntry(lgByMemberID, false)},
		{Name: "A3/unknown-member-id", Source: srcKIP345, Rule: "LeaveGroup v3+ {a member id the group does not hold, null}: UNKNOWN_MEMBER_ID, top-level NONE, members kept", run: caseLGEntry(lgUnknownMemberID, false)},
		{Name: "A3/remove-by-member-id-v0-v2", Source: srcKAFKA18188, Rule: "LeaveGroup v0-v2 naming a member's id: the member is removed, top-level NONE", run: caseLGOld(true)},
		{Name: "A3/unknown-member-id-v0-v2", Source: srcEvery, Rule: "LeaveGroup v0-v2 naming a member id the group does not hold: top-level UNKNOWN_MEMBER_ID", run: caseLGOld(false)},
		{Name: "A3/member-id-unknown-instance", Source: srcKIP345, Rule: "LeaveGroup v3+ {a member's id, an instance nobody holds}: UNKNOWN_MEMBER_ID, the member kept", run: caseLGEntry(lgMemberUnknownInstance, false)},
		{Name: "A3/batch-per-member-errors", Source: srcKIP345, Rule: "one LeaveGroup v3+ batch answers each member on its own", run: caseLGBatch},
		{Name: "A3/batch-error-then-removal", Source: srcKIP345, Rule: "a LeaveGroup v3+ batch whose first entry fails still removes the member its second names", run: caseLGErrorThenRemoval},
		{Name: "A3/batch-one-epoch-bump", Source: srcKAFKA18188, Rule: "a LeaveGroup that removes two members moves the group epoch by one, not two", run: caseLGOneBump},
	}
}

// casesA5: the group epoch (A5.1), a null owned report (A5.3), the epoch
// check's bound (A5.4), the static takeover and the assignment key it
// keeps (A5.5, A5.2), a revocation's answer and the full request (A5.7).
func casesA5() []Case {
	return []Case{
		{Name: "A5.1/static-join-moves-epoch", Source: srcKafka40, Rule: "a new static member's join moves the group epoch on, as any new member's does", run: caseStaticJoinMovesEpoch},
		{Name: "A5.1/subscription-switch-moves-epoch", Source: srcKafka40, Rule: "a member that switches its subscription to as many topics of other names moves the group epoch on: it is given a later epoch and the partitions of the topic it now subscribes to", run: caseSubscriptionSwitch},
		{Name: "A5.3/null-owned-keeps-pending", Source: "KIP-848, Kafka 4.0", Rule: "a heartbeat with TopicPartitions null reports nothing: the partitions its member was asked to give up stay pending, and the member waiting for them is given none", run: caseNullOwnedKeepsPending},
		{Name: "A5.3/still-revoking-keeps-assignment", Source: "KIP-848, Kafka 4.0", Rule: "a member still owning partitions it was asked to give up, when the target moves again, keeps its epoch and its assignment (its full heartbeats answer them) until it lets go", run: caseStillRevokingKeepsAssignment},
		{Name: "A5.3/free-partitions-assigned", Source: "KIP-848, Kafka 4.0", Rule: "a member whose target holds partitions nobody owns and partitions another member still owns is given the free ones at once, none of the others", run: caseFreePartitionsAssigned},
		{Name: "A5.6/rebalance-timeout-fences", Source: "KIP-848, Kafka 4.0", Rule: "a member asked to give partitions up that keeps heartbeating without doing so is fenced at its RebalanceTimeoutMs from when it was first asked: its heartbeats do not restart the timer", Slow: true, run: caseRebalanceTimeoutFences},
		{Name: "A5.4/epoch-one-ahead-fenced", Source: srcKafka40, Rule: "a heartbeat one epoch ahead of the member's is FENCED_MEMBER_EPOCH", run: caseEpochOneAhead},
		{Name: "A5.5/static-restart-keeps-assignment", Source: "KIP-345, Kafka 2.3; consumer groups Kafka 4.0", Rule: "a new member id taking over a parked static member's instance: the group epoch unchanged, the old member's partitions in the join response at that epoch, other members' targets unchanged", run: caseStaticRestart},
		{Name: "A5.5/static-resume-keeps-assignment", Source: "KIP-345, Kafka 2.3; consumer groups Kafka 4.0", Rule: "a parked static member rejoining under its own member id and instance: the group epoch unchanged, its partitions in the join response at that epoch, other members' targets unchanged", run: caseStaticResume},
		{Name: "A5.5/static-restart-then-rebalance", Source: "KIP-345, Kafka 2.3; consumer groups Kafka 4.0", Rule: "after a static takeover, the next rebalance gives every member the target it gets in a twin group without the restart (A5.2: a static member is keyed by its instance id, not its member id)", run: caseRestartThenRebalance},
		{Name: "A5.7/revocation-carries-assignment", Source: srcKafka40, Rule: "a heartbeat that moves partitions to pending revocation answers with the smaller assignment", run: caseRevocationCarriesAssignment},
		{Name: "A5.7/epoch-bump-no-assignment", Source: srcKafka40, Rule: "a heartbeat that only takes a new epoch, the member's partitions unchanged, carries no assignment", run: caseEpochBumpNoAssignment},
		{Name: "A5.7/regex-heartbeat-is-full", Source: srcKafka40, Rule: "a heartbeat with RebalanceTimeoutMs, SubscribedTopicRegex and TopicPartitions set (names null) is a full request: its response carries the assignment", run: caseRegexFull},
	}
}

// casesB42: §B4.2, request validation, INVALID_REQUEST unless noted.
func casesB42() []Case {
	return []Case{
		{Name: "B4.2/blank-group-id", Source: srcKafka40, Rule: "GroupId blank: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.GroupId = " " }, codec.InvalidRequest)},
		{Name: "B4.2/blank-instance-id", Source: srcKafka40, Rule: "InstanceId non-null and blank: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.InstanceId = codec.Str("") }, codec.InvalidRequest)},
		{Name: "B4.2/blank-rack-id", Source: srcKafka40, Rule: "RackId non-null and blank: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.RackId = codec.Str(" ") }, codec.InvalidRequest)},
		{Name: "B4.2/join-without-rebalance-timeout", Source: srcKafka40, Rule: "epoch 0 with RebalanceTimeoutMs -1: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.RebalanceTimeoutMs = -1 }, codec.InvalidRequest)},
		{Name: "B4.2/join-null-topic-partitions", Source: srcKafka40, Rule: "epoch 0 with TopicPartitions null: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.TopicPartitions = nil }, codec.InvalidRequest)},
		{Name: "B4.2/join-nonempty-topic-partitions", Source: srcKafka40, Rule: "epoch 0 with TopicPartitions non-empty: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) {
			r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: codec.UUID{1}, Partitions: []int32{0}}}
		}, codec.InvalidRequest)},
		{Name: "B4.2/join-without-subscription", Source: srcKafka40, Rule: "epoch 0 with neither SubscribedTopicNames nor SubscribedTopicRegex: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.SubscribedTopicNames = nil }, codec.InvalidRequest)},
		{Name: "B4.2/static-leave-null-instance", Source: srcKafka40, Rule: "epoch -2 with InstanceId null: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.MemberEpoch = -2 }, codec.InvalidRequest)},
		{Name: "B4.2/epoch-below-minus-two", Source: srcKafka40, Rule: "epoch < -2: INVALID_REQUEST", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.MemberEpoch = -3 }, codec.InvalidRequest)},
		{Name: "B4.2/unsupported-assignor", Source: srcKafka40, Rule: "ServerAssignor not configured: UNSUPPORTED_ASSIGNOR", run: caseInvalid(func(r *codec.ConsumerGroupHeartbeatRequest) { r.ServerAssignor = codec.Str("no-such-assignor") }, codec.UnsupportedAssignor)},
		{Name: "B4.2/empty-subscription-allowed", Source: srcKafka40, Rule: "epoch 0 with an empty SubscribedTopicNames list is a valid join (NONE)", run: caseEmptySubscription},
		{Name: "B4.2/join-null-regex-allowed", Source: srcKafka40, Rule: "epoch 0 with SubscribedTopicNames and SubscribedTopicRegex null is a valid join (NONE)", Risky: true, run: caseNullRegex},
	}
}

// casesB44: §B4.4, the state rules.
func casesB44() []Case {
	return []Case{
		{Name: "B4.4/heartbeat-missing-group", Source: srcKafka40, Rule: "epoch > 0 to a group that does not exist: GROUP_ID_NOT_FOUND", run: caseMissingGroup(1)},
		{Name: "B4.4/heartbeat-unknown-member", Source: srcKafka40, Rule: "epoch > 0 for a member id the group does not hold: UNKNOWN_MEMBER_ID", run: caseUnknownMember},
		{Name: "B4.4/epoch-ahead-fenced", Source: srcKafka40, Rule: "a heartbeat at an epoch above the member's: FENCED_MEMBER_EPOCH", run: caseEpochAhead},
		{Name: "B4.4/previous-epoch-with-owned-subset", Source: srcKafka40, Rule: "a heartbeat at the member's previous epoch reporting a subset of its assignment is accepted (a lost response)", run: casePreviousEpoch(true)},
		{Name: "B4.4/previous-epoch-without-partitions", Source: srcKafka40, Rule: "a heartbeat at the previous epoch with TopicPartitions null: FENCED_MEMBER_EPOCH", run: casePreviousEpoch(false)},
		{Name: "B4.4/leave-missing-group", Source: srcKafka40, Rule: "a leave (epoch -1) to a group that does not exist: GROUP_ID_NOT_FOUND", run: caseMissingGroup(-1)},
		{Name: "B4.4/leave-unknown-member", Source: srcKafka40, Rule: "a leave for a member id the group does not hold: UNKNOWN_MEMBER_ID", run: caseLeaveUnknown},
		{Name: "B4.4/leave-removes-member", Source: srcKafka40, Rule: "a leave (epoch -1) answers NONE with epoch -1 and removes the member", run: caseLeaveRemoves},
		{Name: "B4.4/leave-twice", Source: srcKafka40, Rule: "a leave is not idempotent: the second gets UNKNOWN_MEMBER_ID", run: caseLeaveTwice},
		{Name: "B4.4/leave-moves-epoch", Source: srcKafka40, Rule: "a leave (epoch -1) that removes a member moves the group epoch on", run: caseLeaveMovesEpoch},
		{Name: "B4.4/static-leave-unknown-instance", Source: srcKIP345On40, Rule: "a static leave (epoch -2) naming an instance nobody holds: UNKNOWN_MEMBER_ID", run: caseStaticLeaveUnknownInstance},
		{Name: "B4.4/invalid-regex", Source: srcKafka40, Rule: "ConsumerGroupHeartbeat v1+ joining with a SubscribedTopicRegex that does not compile: INVALID_REGULAR_EXPRESSION, no member made", run: caseInvalidRegex},
		{Name: "B4.4/invalid-regex-makes-no-group", Source: srcKafka40, Rule: "a join subscribing by a regex that does not compile, to a group id nobody uses, once refused leaves no group: ConsumerGroupDescribe of it is GROUP_ID_NOT_FOUND", run: caseInvalidRegexMakesNoGroup},
		{Name: "B4.4/static-leave-parks", Source: srcKafka40, Rule: "a static leave (epoch -2) answers epoch -2 and keeps the member, listed at epoch -2", run: caseStaticPark},
		{Name: "B4.4/static-leave-drops-pending", Source: srcKafka40, Rule: "a static leave (epoch -2) drops the member's pending revocations: the member waiting for those partitions is given them at once", run: caseParkDropsPending},
		{Name: "B4.4/static-takeover-of-parked", Source: srcKIP345On40, Rule: "a new member id joining with a parked member's instance replaces it", run: caseTakeover},
		{Name: "B4.4/static-takeover-in-full-group", Source: "KAFKA-20601, trunk only (apache/kafka#22356; release unverified)", Rule: "a static takeover of a parked member's instance succeeds when the group holds group.consumer.max.size members", run: caseTakeoverFullGroup},
		{Name: "B4.4/static-heartbeat-unknown-instance", Source: srcKafka40, Rule: "epoch > 0 with an instance no member holds: UNKNOWN_MEMBER_ID", run: caseStaticUnknownInstance},
		{Name: "B4.4/static-heartbeat-fenced-instance", Source: srcKIP345On40, Rule: "epoch > 0 with an instance held by another member id: FENCED_INSTANCE_ID", run: caseStaticFenced(1)},
		{Name: "B4.4/static-leave-fenced-instance", Source: srcKIP345On40, Rule: "a leave with an instance held by another member id: FENCED_INSTANCE_ID", run: caseStaticFenced(-1)},
		{Name: "B4.4/group-max-size", Source: srcKafka40, Rule: "a new member when the group holds group.consumer.max.size members: GROUP_MAX_SIZE_REACHED; members already in may rejoin", run: caseMaxSize},
		{Name: "B4.4/error-response-shape", Source: srcKafka40, Rule: "an error response carries MemberId null, MemberEpoch 0, HeartbeatIntervalMs 0 (§B3.3)", run: caseErrorShape},
		{Name: "B4.4/success-heartbeat-interval", Source: srcKafka40, Rule: "a successful heartbeat carries the broker's heartbeat interval", run: caseInterval},
		{Name: "B4.4/closed-connection-keeps-assignment", Source: "KIP-848, Kafka 4.0", Rule: "a member's partitions stay its own when its connection closes: another member is given none of them until it revokes", run: caseClosedConnection},
		{Name: "B4.4/session-expiry", Source: srcKafka40, Rule: "a member that stops heartbeating stays for its session timeout, then is removed", Slow: true, run: judged(caseSessionExpiry)},
		{Name: "B4.4/error-does-not-refresh-session", Source: srcKafka40, Rule: "an error response does not refresh the session", Slow: true, run: judged(caseErrorNoRefresh)},
		{Name: "B4.4/static-leave-keeps-session", Source: srcKafka40, Rule: "a static leave (epoch -2) does not refresh the session: the parked member is gone one session timeout after its last heartbeat before the leave", Slow: true, run: judged(caseStaticLeaveKeepsSession)},
		{Name: "B4.4/parked-member-expires", Source: "Kafka 4.0 (integration-tested since apache/kafka#14911)", Rule: "a member parked at epoch -2 is removed when its session times out", Slow: true, run: judged(caseParkedExpires)},
	}
}

// casesB5: §B5, LeaveGroup outside A3's table.
func casesB5() []Case {
	return []Case{
		{Name: "B5/missing-group-v3", Source: "Kafka 2.4", Rule: "LeaveGroup v3+ to a missing group: each member UNKNOWN_MEMBER_ID, top-level NONE", run: caseLGMissing(true)},
		{Name: "B5/missing-group-v0-v2", Source: srcEvery, Rule: "LeaveGroup v0-v2 to a missing group: top-level UNKNOWN_MEMBER_ID", run: caseLGMissing(false)},
		{Name: "B5/empty-group-id", Source: srcKafka40, Rule: "LeaveGroup with GroupId \"\": top-level INVALID_GROUP_ID", run: caseLGGroupID("")},
		{Name: "B5/blank-group-id-is-missing-group", Source: srcKafka40, Rule: "LeaveGroup with GroupId \"  \" (not trimmed) is a group that does not exist: v3+ each member UNKNOWN_MEMBER_ID, top-level NONE", run: caseLGGroupID("  ")},
	}
}

// casesB6: §B6, the telemetry APIs outside A2.
func casesB6() []Case {
	return []Case{
		{Name: "B6/push-reserved-instance-id", Source: srcKIP714, Rule: "PushTelemetry v0 with the reserved client instance id 00...01 is INVALID_REQUEST", run: casePushReservedV0},
		{Name: "B6/push-unknown-subscription", Source: srcKIP714, Rule: "PushTelemetry v0 naming another subscription id than the instance was given: UNKNOWN_SUBSCRIPTION_ID", run: casePushUnknownSubscription},
		{Name: "B6/push-unsupported-compression", Source: srcKIP714, Rule: "PushTelemetry v0 with a compression type id that names no codec: UNSUPPORTED_COMPRESSION_TYPE", run: casePushUnsupportedCompression},
		{Name: "B6/push-too-large", Source: srcKIP714, Rule: "PushTelemetry v0 with one byte of metrics more than the TelemetryMaxBytes its fetch gave: TELEMETRY_TOO_LARGE", run: casePushTooLarge},
		{Name: "B6/push-throttled", Source: srcKIP714, Rule: "a second PushTelemetry within the push interval: THROTTLING_QUOTA_EXCEEDED", run: casePushThrottled},
		{Name: "B6/get-throttled", Source: srcKIP714, Rule: "a second GetTelemetrySubscriptions within the push interval: THROTTLING_QUOTA_EXCEEDED", run: caseGetThrottled},
		{Name: "B6/push-after-terminating", Source: srcKIP714, Rule: "a PushTelemetry after the instance's terminating push: INVALID_REQUEST", run: casePushAfterTerminating},
	}
}

// casesB7: §B7, ApiVersions and ConsumerGroupDescribe.
func casesB7() []Case {
	return []Case{
		{Name: "B7.1/unknown-version-answered-v0", Source: "KIP-511, Kafka 2.4", Rule: "ApiVersions at a version the broker does not know: v0 body, UNSUPPORTED_VERSION, the ApiVersions range", run: caseAVUnknown},
		{Name: "B7.1/bad-software-name", Source: "KIP-511, Kafka 2.4", Rule: "ApiVersions v3+ with a software name outside the pattern: INVALID_REQUEST", run: caseAVBadName},
		{Name: "B7.1/advertises-group-apis", Source: srcEvery, Rule: "ApiVersions lists every group api the Kafka release the broker is held to lists by default, up to that release's highest version (docs/PROTOCOL.md B13)", run: caseAVLists},
		{Name: "B7.2/describe-missing-group", Source: srcKafka40, Rule: "ConsumerGroupDescribe of a missing group: GROUP_ID_NOT_FOUND", run: caseDescribeMissing},
		{Name: "B7.2/describe-renamed-client", Source: srcKafka40, Rule: "ConsumerGroupDescribe shows a member under the ClientId of its latest heartbeat, not its join's", run: caseDescribeRenamedClient},
		{Name: "B7.2/describe-topic-names", Source: srcKafka40, Rule: "ConsumerGroupDescribe names each assigned topic (TopicName) beside its id", run: caseDescribeNames},
		{Name: "B7.2/describe-empty-group-id", Source: srcKafka40, Rule: "ConsumerGroupDescribe of GroupId \"\": INVALID_GROUP_ID, echoed with GroupId \"\"", run: caseDescribeGroupID("")},
		{Name: "B7.2/describe-blank-group-id", Source: srcKafka40, Rule: "ConsumerGroupDescribe of GroupId \"  \" (not trimmed): GROUP_ID_NOT_FOUND", run: caseDescribeGroupID("  ")},
	}
}

// casesB11: §B1.1, what a client needs to talk to the broker at all.
func casesB11() []Case {
	return []Case{
		{Name: "B1.1/trailing-bytes-ignored", Source: srcEvery, Rule: "bytes after a complete request body are ignored", run: caseTrailing},
		{Name: "B1.1/unsupported-version-closes", Source: srcEvery, Rule: "a request of an api the broker serves, one version above its highest: the connection is closed, no response", run: caseUnsupportedVersion},
		{Name: "B1.1/unknown-api-key-closes", Source: srcEvery, Rule: "a request with an api key the broker does not know: the connection is closed, no response, the broker keeps serving", Risky: true, run: caseUnknownKey},
	}
}

// --- A1 ---
func caseV1Empty(id string) func(p *probe) verdict {
	return func(p *probe) verdict {
		if !p.offers(codec.ConsumerGroupHeartbeat, 1) {
			return skip("the broker does not offer ConsumerGroupHeartbeat v1")
		}
		c := p.conn()
		g := p.id("g")
		r := c.hb(1, p.joinReq(g, id))
		d := c.describeFor(g, r.ErrorCode == codec.InvalidRequest, hbString(r), "INVALID_REQUEST and no member")
		obs := hbString(r) + "; " + describeString(d)
		return want(r.ErrorCode == codec.InvalidRequest && len(members(d)) == 0, obs, "INVALID_REQUEST and no member")
	}
}

func caseV1HeartbeatEmpty(p *probe) verdict {
	if !p.offers(codec.ConsumerGroupHeartbeat, 1) {
		return skip("the broker does not offer ConsumerGroupHeartbeat v1")
	}
	c := p.conn()
	g := p.id("g")
	c.mustJoin(p.joinReq(g, p.id("m")))
	r := c.hb(1, keepalive(g, "", 1))
	return want(r.ErrorCode == codec.InvalidRequest, hbString(r), "INVALID_REQUEST")
}

func caseV0Generated(p *probe) verdict {
	if !p.offers(codec.ConsumerGroupHeartbeat, 0) {
		return skip("the broker does not offer ConsumerGroupHeartbeat v0")
	}
	c := p.conn()
	g := p.id("g")
	r := c.hb(0, p.joinReq(g, ""))
	ok := r.ErrorCode == codec.None && r.MemberId.Valid && r.MemberId.Value != "" && !zeroID(r.MemberId.Value)
	if ok {
		c.hb(0, leave(g, r.MemberId.Value, -1))
	}
	return want(ok, hbString(r)+" id="+r.MemberId.String(), "NONE with a non-empty, non-zero member id")
}

func zeroID(s string) bool {
	u, err := codec.ParseUUID(s)
	return err == nil && u.IsZero()
}

func caseRetriedJoin(isStatic bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		c := p.conn()
		g, m, inst := p.id("g"), p.id("m"), p.id("i")
		req := func() *codec.ConsumerGroupHeartbeatRequest {
			r := p.joinReq(g, m)
			if isStatic {
				static(r, inst)
			}
			return r
		}
		r1 := c.mustJoin(req())
		r2 := c.hb(p.hbv(), req())
		d := c.describeFor(g, r2.ErrorCode == codec.None && r2.MemberEpoch == r1.MemberEpoch, fmt.Sprintf("first %s; retry %s", hbString(r1), hbString(r2)),
			"the retry NONE at the same epoch, one member")
		obs := fmt.Sprintf("first %s; retry %s; %s", hbString(r1), hbString(r2), describeString(d))
		ms := members(d)
		return want(r2.ErrorCode == codec.None && r2.MemberEpoch == r1.MemberEpoch && len(ms) == 1 && ms[m] == r1.MemberEpoch,
			obs, "the retry NONE at the same epoch, one member")
	}
}

func caseUnreleased(p *probe) verdict {
	c := p.conn()
	g, inst := p.id("g"), p.id("i")
	c.mustJoin(static(p.joinReq(g, p.id("m")), inst))
	r := c.hb(p.hbv(), static(p.joinReq(g, p.id("m")), inst))
	return want(r.ErrorCode == codec.UnreleasedInstanceID, hbString(r), "UNRELEASED_INSTANCE_ID")
}

func caseOtherInstance(p *probe) verdict {
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	c.mustJoin(static(p.joinReq(g, m), p.id("i")))
	r := c.hb(p.hbv(), static(p.joinReq(g, m), p.id("i")))
	if p.max(codec.ConsumerGroupDescribe) < 0 {
		return want(r.ErrorCode == codec.InvalidRequest, hbString(r), "INVALID_REQUEST")
	}
	d := c.describe(g)
	return want(r.ErrorCode == codec.InvalidRequest, hbString(r)+"; "+describeString(d), "INVALID_REQUEST")
}

func caseAnyString(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	id := "not a uuid! " + p.id("m")
	r := c.hb(p.hbv(), p.joinReq(g, id))
	return want(r.ErrorCode == codec.None && r.MemberId.Value == id, hbString(r), "NONE, the id echoed")
}

// --- A2 ---

// clientIDOf joins on c (a request with null ClientId unless it is the
// connection's first) and returns the ClientId Describe shows.
func clientIDOf(p *probe, c *pconn) (string, string) {
	g, m := p.id("g"), p.id("m")
	c.mustJoin(p.joinReq(g, m))
	d := p.conn().describe(g)
	for _, mm := range d.Members {
		if mm.MemberId == m {
			return mm.ClientId, fmt.Sprintf("Describe shows ClientId %q", mm.ClientId)
		}
	}
	panic(abort{fail(describeString(d), "the joined member listed")})
}

func caseClientIDRemembered(p *probe) verdict {
	c := p.connAs(codec.Str("ghostcheck-first"))
	c.do(codec.ApiVersions, 3, &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck", ClientSoftwareVersion: "1.0"})
	id, obs := clientIDOf(p, c) // the join carries a null ClientId
	return want(id == "ghostcheck-first", obs+" for a join sent with a null ClientId", `"ghostcheck-first", the connection's first`)
}

func caseNullFirstClientID(p *probe) verdict {
	c := p.connAs(codec.Null)
	id, obs := clientIDOf(p, c)
	return want(id == "", obs, `""`)
}

func caseLaterClientID(p *probe) verdict {
	c := p.connAs(codec.Str("ghostcheck-first"))
	c.do(codec.ApiVersions, 3, &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck", ClientSoftwareVersion: "1.0"})
	h := c.header(codec.ApiVersions, 3)
	h.ClientId = codec.Str("ghostcheck-second")
	if _, err := c.try(h, &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck", ClientSoftwareVersion: "1.0"}); err != nil {
		return fail(err.Error(), "a response")
	}
	id, obs := clientIDOf(p, c)
	return want(id == "ghostcheck-first", obs+" after a later request sent another ClientId", `"ghostcheck-first"`)
}

func caseHeaderTags(p *probe) verdict {
	c := p.conn()
	key, v, req, say := p.mustHarmless(true)
	h := c.header(key, v)
	h.UnknownTags = codec.TaggedFields{{Tag: 7, Data: []byte("ghostcheck")}}
	resp, err := c.try(h, req)
	if err != nil {
		return failOrOwn(fmt.Sprintf("%v v%d with a header with tag 0 and tag 7", key, v), err, "a response")
	}
	if d, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok && len(d.Groups) != 1 {
		return fail(say(resp), "an answer")
	}
	return pass("answered: " + say(resp))
}

func caseTelemetryV1(zero bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		if !p.offers(codec.GetTelemetrySubscriptions, 1) {
			return skip(p.withoutKIP1313(codec.GetTelemetrySubscriptions))
		}
		c := p.conn()
		h := c.header(codec.GetTelemetrySubscriptions, 1)
		h.ClientInstanceId = codec.NullableUUID{}
		if zero {
			h.ClientInstanceId = codec.SomeUUID(codec.UUID{})
		}
		resp, err := c.try(h, &codec.GetTelemetrySubscriptionsRequest{})
		if err != nil {
			return fail(err.Error(), "INVALID_REQUEST")
		}
		r := resp.(*codec.GetTelemetrySubscriptionsResponse)
		return want(r.ErrorCode == codec.InvalidRequest, r.ErrorCode.String(), "INVALID_REQUEST")
	}
}

func caseTelemetryV1Header(p *probe) verdict {
	if !p.offers(codec.GetTelemetrySubscriptions, 1) {
		return skip(p.withoutKIP1313(codec.GetTelemetrySubscriptions))
	}
	c := p.conn()
	if err := c.hm.SetInstanceID(newInstance()); err != nil {
		return fail(err.Error(), "a fresh client instance id")
	}
	r := c.do(codec.GetTelemetrySubscriptions, 1, &codec.GetTelemetrySubscriptionsRequest{}).(*codec.GetTelemetrySubscriptionsResponse)
	return want(r.ErrorCode == codec.None, fmt.Sprintf("%s subscription=%d", r.ErrorCode, r.SubscriptionId), "NONE")
}

// newInstance is a fresh client instance id (never the zero UUID).
func newInstance() codec.UUID {
	u, err := wire.NewInstanceID(rand.Reader)
	if err != nil {
		panic(abort{fail(err.Error(), "a fresh client instance id")})
	}
	return u
}

func caseTelemetryV0(zero bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		if !p.offers(codec.GetTelemetrySubscriptions, 0) {
			return skip("the broker does not offer GetTelemetrySubscriptions v0")
		}
		c := p.conn()
		var id codec.UUID
		if !zero {
			id = newInstance()
		}
		r := c.do(codec.GetTelemetrySubscriptions, 0, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: id}).(*codec.GetTelemetrySubscriptionsResponse)
		obs := fmt.Sprintf("%s id=%s", r.ErrorCode, r.ClientInstanceId)
		if zero {
			return want(r.ErrorCode == codec.None && !r.ClientInstanceId.IsZero(), obs, "NONE with a non-zero id")
		}
		return want(r.ErrorCode == codec.None && r.ClientInstanceId == id, obs, "NONE echoing "+id.String())
	}
}

// --- A3 ---
func (p *probe) lgv() (int16, bool) {
	v := min(p.max(codec.LeaveGroup), 5)
	return v, v >= 3
}

func caseAdminRemoval(p *probe) verdict {
	v, ok := p.lgv()
	if !ok {
		return skip("the broker does not offer LeaveGroup v3")
	}
	c := p.conn()
	g, inst := p.id("g"), p.id("i")
	c.mustJoin(static(p.joinReq(g, p.id("m")), inst))
	r := c.leaveGroup(v, g, codec.LeaveGroupMember{GroupInstanceId: codec.Str(inst)})
	ok = r.ErrorCode == codec.None && len(r.Members) == 1 && r.Members[0].ErrorCode == codec.None
	d := c.describeFor(g, ok, lgString(r), "NONE for the member, and the group empty")
	ok = ok && len(members(d)) == 0
	return want(ok, lgString(r)+"; "+describeString(d), "NONE for the member, and the group empty")
}

// An lgCase sets up a group with one static member (m, inst) and returns
// the LeaveGroup entry to send, the per-member code expected, and whether
// the member must still be in the group afterwards.
type lgCase func(p *probe, m, inst string) (codec.LeaveGroupMember, codec.ErrorCode, bool)

func lgUnknownInstance(p *probe, _, _ string) (codec.LeaveGroupMember, codec.ErrorCode, bool) {
	return codec.LeaveGroupMember{GroupInstanceId: codec.Str(p.id("nobody"))}, codec.UnknownMemberID, true
}

func lgEmptyBoth(*probe, string, string) (codec.LeaveGroupMember, codec.ErrorCode, bool) {
	return codec.LeaveGroupMember{}, codec.UnknownMemberID, true
}

func lgFenced(p *probe, _, inst string) (codec.LeaveGroupMember, codec.ErrorCode, bool) {
	return codec.LeaveGroupMember{MemberId: p.id("other"), GroupInstanceId: codec.Str(inst)}, codec.FencedInstanceID, true
}

func lgOwn(_ *probe, m, inst string) (codec.LeaveGroupMember, codec.ErrorCode, bool) {
	return codec.LeaveGroupMember{MemberId: m, GroupInstanceId: codec.Str(inst)}, codec.None, false
}

func lgByMemberID(_ *probe, m, _ string) (codec.LeaveGroupMember, codec.ErrorCode, bool) {
	return codec.LeaveGroupMember{MemberId: m}, codec.None, false
}

func lgUnknownMemberID(p *probe, _, _ string) (codec.LeaveGroupMember, codec.ErrorCode, bool) {
	return codec.LeaveGroupMember{MemberId: p.id("stranger")}, codec.UnknownMemberID, true
}

func caseLGOne(mk lgCase) func(p *probe) verdict { return caseLGEntry(mk, true) }

// caseLGEntry is caseLGOne with a static member (isStatic) or a dynamic
// one (inst is then "").
func caseLGEntry(mk lgCase, isStatic bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		v, ok := p.lgv()
		if !ok {
			return skip("the broker does not offer LeaveGroup v3")
		}
		c := p.conn()
		g, m, inst, kind := p.id("g"), p.id("m"), "", "dynamic"
		if isStatic {
			inst, kind = p.id("i"), "static"
			c.mustJoin(static(p.joinReq(g, m), inst))
		} else {
			c.mustJoin(p.joinReq(g, m))
		}
		entry, code, keep := mk(p, m, inst)
		r := c.leaveGroup(v, g, entry)
		exp := fmt.Sprintf("top NONE, member %s, the %s member removed", code, kind)
		if keep {
			exp = fmt.Sprintf("top NONE, member %s, the %s member kept", code, kind)
		}
		ok = r.ErrorCode == codec.None && len(r.Members) == 1 && r.Members[0].ErrorCode == code
		d := c.describeFor(g, ok, lgString(r), exp)
		_, kept := members(d)[m]
		return want(ok && kept == keep, lgString(r)+"; "+describeString(d), exp)
	}
}

func caseLGBatch(p *probe) verdict {
	v, ok := p.lgv()
	if !ok {
		return skip("the broker does not offer LeaveGroup v3")
	}
	c := p.conn()
	g, inst := p.id("g"), p.id("i")
	c.mustJoin(static(p.joinReq(g, p.id("m")), inst))
	r := c.leaveGroup(v, g, codec.LeaveGroupMember{GroupInstanceId: codec.Str(inst)}, codec.LeaveGroupMember{GroupInstanceId: codec.Str(p.id("nobody"))})
	ok = r.ErrorCode == codec.None && len(r.Members) == 2 && r.Members[0].ErrorCode == codec.None && r.Members[1].ErrorCode == codec.UnknownMemberID
	return want(ok, lgString(r), "top NONE, members [NONE UNKNOWN_MEMBER_ID]")
}

// --- §B4.2 ---
func caseInvalid(mod func(*codec.ConsumerGroupHeartbeatRequest), code codec.ErrorCode) func(p *probe) verdict {
	return func(p *probe) verdict {
		c := p.conn()
		g, m := p.id("g"), p.id("m")
		r := p.joinReq(g, m)
		mod(r)
		resp := c.hb(p.hbv(), r)
		d := c.describeFor(g, resp.ErrorCode == code, hbString(resp), code.String()+" and no member made")
		_, made := members(d)[m]
		return want(resp.ErrorCode == code && !made, hbString(resp)+"; "+describeString(d), code.String()+" and no member made")
	}
}

func caseEmptySubscription(p *probe) verdict {
	c := p.conn()
	r := p.joinReq(p.id("g"), p.id("m"))
	r.SubscribedTopicNames = []string{}
	resp := c.hb(p.hbv(), r)
	return want(resp.ErrorCode == codec.None, hbString(resp), "NONE")
}

// caseNullRegex sends the join every other case sends, with the regex
// null even under WorkaroundJoinRegex: the finding it works around.
func caseNullRegex(p *probe) verdict {
	c := p.conn()
	r := p.joinReq(p.id("g"), p.id("m"))
	r.SubscribedTopicRegex = codec.Null
	resp := c.do(codec.ConsumerGroupHeartbeat, p.hbv(), r).(*codec.ConsumerGroupHeartbeatResponse)
	return want(resp.ErrorCode == codec.None, hbString(resp), "NONE")
}

// --- §B4.4 ---
func caseMissingGroup(epoch int32) func(p *probe) verdict {
	return func(p *probe) verdict {
		r := p.conn().hb(p.hbv(), keepalive(p.id("g"), p.id("m"), epoch))
		return want(r.ErrorCode == codec.GroupIDNotFound, hbString(r), "GROUP_ID_NOT_FOUND")
	}
}

func caseUnknownMember(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	c.mustJoin(p.joinReq(g, p.id("m")))
	r := c.hb(p.hbv(), keepalive(g, p.id("stranger"), 1))
	return want(r.ErrorCode == codec.UnknownMemberID, hbString(r), "UNKNOWN_MEMBER_ID")
}

func caseEpochAhead(p *probe) verdict {
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	j := c.mustJoin(p.joinReq(g, m))
	r := c.hb(p.hbv(), keepalive(g, m, j.MemberEpoch+5))
	return want(r.ErrorCode == codec.FencedMemberEpoch, hbString(r), "FENCED_MEMBER_EPOCH")
}

// owned turns a response's assignment into a heartbeat's TopicPartitions.
func owned(a *codec.ConsumerGroupHeartbeatAssignment) []codec.ConsumerGroupHeartbeatTopicPartitions {
	out := []codec.ConsumerGroupHeartbeatTopicPartitions{}
	if a != nil {
		for _, t := range a.TopicPartitions {
			out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: t.TopicId, Partitions: append([]int32{}, t.Partitions...)})
		}
	}
	return out
}

// casePreviousEpoch moves a member's epoch forward once (a second member
// joins; the first reconciles, reporting what it owns) and then sends a
// heartbeat at its previous epoch.
func casePreviousEpoch(withPartitions bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		c := p.conn()
		g, m1 := p.id("g"), p.id("m")
		j := c.mustJoin(p.joinReq(g, m1))
		epoch, own := j.MemberEpoch, owned(j.Assignment)
		prev := int32(-1)
		c.mustJoin(p.joinReq(g, p.id("m")))
		for i := 0; i < 10 && prev < 0; i++ {
			req := keepalive(g, m1, epoch)
			req.TopicPartitions = own
			r := c.hb(p.hbv(), req)
			if r.ErrorCode != codec.None {
				return fail("reconciling: "+hbString(r), "the setup heartbeats to succeed")
			}
			if r.Assignment != nil {
				own = owned(r.Assignment)
			}
			if r.MemberEpoch != epoch {
				prev, epoch = epoch, r.MemberEpoch
			}
		}
		if prev < 0 {
			return skip("the member's epoch did not move in 10 heartbeats after a second member joined")
		}
		req := keepalive(g, m1, prev)
		if withPartitions {
			req.TopicPartitions = own
		}
		r := c.hb(p.hbv(), req)
		obs := fmt.Sprintf("member at epoch %d (previous %d); heartbeat at %d: %s", epoch, prev, prev, hbString(r))
		if withPartitions {
			return want(r.ErrorCode == codec.None && r.MemberEpoch >= epoch, obs, "NONE at the current epoch")
		}
		return want(r.ErrorCode == codec.FencedMemberEpoch, obs, "FENCED_MEMBER_EPOCH")
	}
}

func caseLeaveUnknown(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	c.mustJoin(p.joinReq(g, p.id("m")))
	r := c.hb(p.hbv(), leave(g, p.id("stranger"), -1))
	return want(r.ErrorCode == codec.UnknownMemberID, hbString(r), "UNKNOWN_MEMBER_ID")
}

func caseLeaveRemoves(p *probe) verdict {
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	c.mustJoin(p.joinReq(g, m))
	r := c.hb(p.hbv(), leave(g, m, -1))
	d := c.describeFor(g, r.ErrorCode == codec.None && r.MemberEpoch == -1, hbString(r), "NONE epoch -1, member gone")
	_, still := members(d)[m]
	return want(r.ErrorCode == codec.None && r.MemberEpoch == -1 && !still, hbString(r)+"; "+describeString(d), "NONE epoch -1, member gone")
}

func caseLeaveTwice(p *probe) verdict {
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	c.mustJoin(p.joinReq(g, m))
	c.mustJoin(p.joinReq(g, p.id("m"))) // the group outlives the leave
	r1 := c.hb(p.hbv(), leave(g, m, -1))
	r2 := c.hb(p.hbv(), leave(g, m, -1))
	return want(r1.ErrorCode == codec.None && r2.ErrorCode == codec.UnknownMemberID, "first "+hbString(r1)+"; second "+hbString(r2), "NONE, then UNKNOWN_MEMBER_ID")
}

// caseLeaveMovesEpoch: two members, one leaves at -1; the group epoch
// Describe shows must move on (a removal is a membership change, A5.1),
// or the member left keeps a target computed with the one gone.
func caseLeaveMovesEpoch(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	g, m1, m2 := p.id("g"), p.id("m"), p.id("m")
	c.mustJoin(p.joinReq(g, m1)) // the group outlives the leave
	c.mustJoin(p.joinReq(g, m2))
	before := c.describe(g)
	r := c.hb(p.hbv(), leave(g, m2, -1))
	after := c.describe(g)
	_, still := members(after)[m2]
	obs := fmt.Sprintf("group epoch %d; leave %s; group epoch %d; %s", before.GroupEpoch, hbString(r), after.GroupEpoch, describeString(after))
	return want(before.ErrorCode == codec.None && r.ErrorCode == codec.None && !still && after.GroupEpoch > before.GroupEpoch,
		obs, fmt.Sprintf("NONE, the member gone and the group epoch above %d", before.GroupEpoch))
}

// caseStaticLeaveUnknownInstance: a static leave (epoch -2) naming an
// instance no member holds is UNKNOWN_MEMBER_ID, as a heartbeat naming one
// is; NONE would tell a client it parked a member that does not exist.
func caseStaticLeaveUnknownInstance(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	c.mustJoin(static(p.joinReq(g, p.id("m")), p.id("i"))) // the group exists
	r := c.hb(p.hbv(), static(leave(g, p.id("stranger"), -2), p.id("nobody")))
	return want(r.ErrorCode == codec.UnknownMemberID, hbString(r), "UNKNOWN_MEMBER_ID")
}

// caseInvalidRegex: a join subscribing by a regex that does not compile
// ("[" is an unclosed class in every regex dialect) is
// INVALID_REGULAR_EXPRESSION (v1+) and makes no member.
func caseInvalidRegex(p *probe) verdict {
	if !p.offers(codec.ConsumerGroupHeartbeat, 1) {
		return skip("the broker does not offer ConsumerGroupHeartbeat v1 (INVALID_REGULAR_EXPRESSION is v1's)")
	}
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	join := p.joinReq(g, m)
	join.SubscribedTopicNames, join.SubscribedTopicRegex = nil, codec.Str("[")
	r := c.hb(1, join)
	d := c.describeFor(g, r.ErrorCode == codec.InvalidRegularExpression, hbString(r), "INVALID_REGULAR_EXPRESSION and no member made")
	_, made := members(d)[m]
	return want(r.ErrorCode == codec.InvalidRegularExpression && !made, hbString(r)+"; "+describeString(d), "INVALID_REGULAR_EXPRESSION and no member made")
}

func caseStaticPark(p *probe) verdict {
	c := p.conn()
	g, m, inst := p.id("g"), p.id("m"), p.id("i")
	c.mustJoin(static(p.joinReq(g, m), inst))
	r := c.hb(p.hbv(), static(leave(g, m, -2), inst))
	d := c.describeFor(g, r.ErrorCode == codec.None && r.MemberEpoch == -2, hbString(r), "NONE epoch -2, listed at -2")
	e, listed := members(d)[m]
	return want(r.ErrorCode == codec.None && r.MemberEpoch == -2 && listed && e == -2, hbString(r)+"; "+describeString(d), "NONE epoch -2, listed at -2")
}

func caseTakeover(p *probe) verdict {
	c := p.conn()
	g, m1, m2, inst := p.id("g"), p.id("m"), p.id("m"), p.id("i")
	c.mustJoin(static(p.joinReq(g, m1), inst))
	if r := c.hb(p.hbv(), static(leave(g, m1, -2), inst)); r.ErrorCode != codec.None {
		return fail("static leave: "+hbString(r), "the setup static leave to succeed")
	}
	r := c.hb(p.hbv(), static(p.joinReq(g, m2), inst))
	d := c.describeFor(g, r.ErrorCode == codec.None, hbString(r), "NONE; only the new member id listed")
	ms := members(d)
	_, old := ms[m1]
	_, now := ms[m2]
	return want(r.ErrorCode == codec.None && !old && now && len(ms) == 1, hbString(r)+"; "+describeString(d), "NONE; only the new member id listed")
}

func caseStaticUnknownInstance(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	c.mustJoin(p.joinReq(g, p.id("m")))
	r := c.hb(p.hbv(), static(keepalive(g, p.id("stranger"), 1), p.id("nobody")))
	return want(r.ErrorCode == codec.UnknownMemberID, hbString(r), "UNKNOWN_MEMBER_ID")
}

func caseStaticFenced(epoch int32) func(p *probe) verdict {
	return func(p *probe) verdict {
		c := p.conn()
		g, inst := p.id("g"), p.id("i")
		c.mustJoin(static(p.joinReq(g, p.id("m")), inst))
		r := c.hb(p.hbv(), static(keepalive(g, p.id("other"), epoch), inst))
		return want(r.ErrorCode == codec.FencedInstanceID, hbString(r), "FENCED_INSTANCE_ID")
	}
}

// cannotFill is the skip of a case that fills a group to the broker's
// group.consumer.max.size, n, when it cannot: n not given, or too large to
// make that many members.
func cannotFill(n int) (verdict, bool) {
	switch {
	case n <= 0:
		return skip("the broker's group.consumer.max.size was not given (--max-group-size)"), true
	case n > 200:
		return skip("group.consumer.max.size above 200: too many members to make"), true
	}
	return verdict{}, false
}

func caseMaxSize(p *probe) verdict {
	n := p.peer.MaxGroupSize
	if v, cannot := cannotFill(n); cannot {
		return v
	}
	c := p.conn()
	g := p.id("g")
	var first string
	for i := 0; i < n; i++ {
		m := p.id("m")
		if i == 0 {
			first = m
		}
		c.mustJoin(p.joinReq(g, m))
	}
	r := c.hb(p.hbv(), p.joinReq(g, p.id("m")))
	again := c.hb(p.hbv(), p.joinReq(g, first))
	obs := fmt.Sprintf("member %d: %s; rejoin of a member: %s", n+1, hbString(r), hbString(again))
	return want(r.ErrorCode == codec.GroupMaxSizeReached && again.ErrorCode == codec.None, obs, "GROUP_MAX_SIZE_REACHED, then NONE for the rejoin")
}

func caseErrorShape(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	c.mustJoin(p.joinReq(g, p.id("m")))
	r := c.hb(p.hbv(), keepalive(g, p.id("stranger"), 1))
	ok := r.ErrorCode != codec.None && !r.MemberId.Valid && r.MemberEpoch == 0 && r.HeartbeatIntervalMs == 0 && r.Assignment == nil
	return want(ok, fmt.Sprintf("%s member=%v epoch=%d interval=%d", r.ErrorCode, r.MemberId, r.MemberEpoch, r.HeartbeatIntervalMs), "an error with member null, epoch 0, interval 0")
}

func caseInterval(p *probe) verdict {
	c := p.conn()
	r := c.mustJoin(p.joinReq(p.id("g"), p.id("m")))
	if p.peer.HeartbeatInterval > 0 {
		w := int32(p.peer.HeartbeatInterval.Milliseconds())
		return want(r.HeartbeatIntervalMs == w, hbString(r), fmt.Sprintf("interval=%d", w))
	}
	return want(r.HeartbeatIntervalMs > 0, hbString(r), "a positive interval")
}

// caseClosedConnection: m1 joins and is given partitions; m2 joins, so m1
// must give some up; m1's connection closes, and m1 goes on heartbeating
// on a new one, reporting that it still owns every partition it was given
// (it has not revoked yet, as a slow client may not for up to its
// rebalance timeout). KIP-848 members are not bound to connections: m2
// must be given none of m1's partitions, however often it heartbeats, and
// in whatever order the two heartbeat.
func caseClosedConnection(p *probe) verdict {
	a := p.conn()
	g, m1, m2 := p.id("g"), p.id("m"), p.id("m")
	j := a.mustJoin(p.joinReq(g, m1))
	own := owned(j.Assignment)
	for i := 0; i < 5 && len(partitionSet(own)) == 0; i++ {
		req := keepalive(g, m1, j.MemberEpoch)
		req.TopicPartitions = own
		if j = a.hb(p.hbv(), req); j.ErrorCode != codec.None {
			return fail("m1's setup heartbeat: "+hbString(j), "the setup heartbeats to succeed")
		}
		if j.Assignment != nil {
			own = owned(j.Assignment)
		}
	}
	ownSet := partitionSet(own)
	if len(ownSet) == 0 {
		return skip("the broker gave the group's only member no partitions")
	}
	b := p.conn()
	r := b.mustJoin(p.joinReq(g, m2))
	given := partitionSet(owned(r.Assignment))
	a.wire().Close()
	a = p.conn()
	var seen []string
	for i := 0; i < 4; i++ {
		time.Sleep(50 * time.Millisecond) // the broker sees the close
		if i > 0 {                        // m1, still owning everything, keeps its session
			req := keepalive(g, m1, j.MemberEpoch)
			req.TopicPartitions = own
			if j = a.hb(p.hbv(), req); j.ErrorCode != codec.None {
				return fail("m1's heartbeat on a new connection: "+hbString(j), "m1's heartbeats to succeed")
			}
		}
		req := p.joinReq(g, m2)
		if r.MemberEpoch > 0 {
			req = keepalive(g, m2, r.MemberEpoch)
			req.TopicPartitions = owned(r.Assignment)
		}
		if r = b.hb(p.hbv(), req); r.ErrorCode != codec.None {
			return fail("m2's heartbeat: "+hbString(r), "m2's heartbeats to succeed")
		}
		seen = append(seen, hbString(r))
		for k := range partitionSet(owned(r.Assignment)) {
			given[k] = true
		}
	}
	var both []string
	for k := range given {
		if ownSet[k] {
			both = append(both, fmt.Sprint(k[1]))
		}
	}
	sort.Strings(both)
	obs := fmt.Sprintf("m1 owns %d partitions and does not revoke; after its connection closed, m2's heartbeats: %s", len(ownSet), strings.Join(seen, "; "))
	if len(both) > 0 {
		obs = fmt.Sprintf("m2 was given partitions %s that m1 still owns; ", strings.Join(both, ",")) + obs
	}
	return want(len(both) == 0, obs, "none of m1's partitions for m2 until m1 revokes them")
}

// partitionSet is the (topic id, partition) pairs of an owned list.
func partitionSet(tps []codec.ConsumerGroupHeartbeatTopicPartitions) map[[2]any]bool {
	s := map[[2]any]bool{}
	for _, t := range tps {
		for _, p := range t.Partitions {
			s[[2]any{t.TopicId, p}] = true
		}
	}
	return s
}

// expiryMargin is how long after a session timeout a removal may take.
func (p *probe) expiryMargin() time.Duration {
	return max(300*time.Millisecond, p.peer.SessionTimeout/4)
}

// present reports whether member m is listed in group g.
func present(c *pconn, g, m string) (bool, string) {
	d := c.describe(g)
	_, ok := members(d)[m]
	return ok, describeString(d)
}

func caseSessionExpiry(p *probe) verdict {
	s := p.peer.SessionTimeout
	if s <= 0 {
		return skip("the broker's session timeout was not given (--session-timeout)")
	}
	p.needs(codec.ConsumerGroupDescribe) // before waiting a session out
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	clock := p.sessionClock() // timed from what the case saw (expiry.go)
	defer clock.stop()
	clock.arm(func() { c.mustJoin(p.joinReq(g, m)) })
	time.Sleep(time.Until(clock.armed.Add(s / 2)))
	mid, d1 := present(c, g, m)
	if !mid && clock.ended(time.Now()) {
		return clock.tooSlow("the Describe at half the session timeout was answered after the session could have ended")
	}
	clock.waitGone()
	end, d2 := present(c, g, m)
	obs := fmt.Sprintf("at %v: %s; at %v: %s", s/2, d1, s+p.expiryMargin(), d2)
	return want(mid && !end, obs, "listed at half the session timeout, gone after it")
}

func caseErrorNoRefresh(p *probe) verdict {
	s := p.peer.SessionTimeout
	if s <= 0 {
		return skip("the broker's session timeout was not given (--session-timeout)")
	}
	p.needs(codec.ConsumerGroupDescribe) // before waiting a session out
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	clock := p.sessionClock() // timed from what the case saw (expiry.go)
	defer clock.stop()
	var j *codec.ConsumerGroupHeartbeatResponse
	clock.arm(func() { j = c.mustJoin(p.joinReq(g, m)) })
	time.Sleep(time.Until(clock.armed.Add(s * 6 / 10)))
	errSent := time.Now()
	e := c.hb(p.hbv(), keepalive(g, m, j.MemberEpoch+7))
	clock.waitGone()
	listed, d := present(c, g, m)
	if !listed && e.ErrorCode != codec.None && !time.Now().Before(errSent.Add(s)) {
		// A session the error refreshed may have run out by then too.
		return clock.tooSlow("the Describe was answered after a session the error heartbeat refreshed could have ended")
	}
	return want(e.ErrorCode != codec.None && !listed, fmt.Sprintf("error heartbeat at %v: %s; at %v: %s", s*6/10, hbString(e), s+p.expiryMargin(), d),
		"the member gone one session timeout after its last successful heartbeat")
}

func caseParkedExpires(p *probe) verdict {
	s := p.peer.SessionTimeout
	if s <= 0 {
		return skip("the broker's session timeout was not given (--session-timeout)")
	}
	p.needs(codec.ConsumerGroupDescribe) // before waiting a session out
	c := p.conn()
	g, m, inst := p.id("g"), p.id("m"), p.id("i")
	clock := p.sessionClock() // timed from what the case saw (expiry.go)
	defer clock.stop()
	clock.arm(func() { c.mustJoin(static(p.joinReq(g, m), inst)) })
	if r := c.hb(p.hbv(), static(leave(g, m, -2), inst)); r.ErrorCode != codec.None {
		return fail("static leave: "+hbString(r), "the setup static leave to succeed")
	}
	parked, d1 := present(c, g, m)
	if !parked && clock.ended(time.Now()) {
		return clock.tooSlow("the Describe of the parked member was answered after its session could have ended")
	}
	clock.waitGone()
	still, d2 := present(c, g, m)
	return want(parked && !still, fmt.Sprintf("parked: %s; after %v: %s", d1, s+p.expiryMargin(), d2), "listed while parked, gone after the session timeout")
}

// --- §B5 ---
func caseLGMissing(v3 bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		c := p.conn()
		g := p.id("g")
		if v3 {
			v, ok := p.lgv()
			if !ok {
				return skip("the broker does not offer LeaveGroup v3")
			}
			r := c.leaveGroup(v, g, codec.LeaveGroupMember{MemberId: p.id("m")})
			return want(r.ErrorCode == codec.None && len(r.Members) == 1 && r.Members[0].ErrorCode == codec.UnknownMemberID, lgString(r), "top NONE, member UNKNOWN_MEMBER_ID")
		}
		if !p.offers(codec.LeaveGroup, 0) && !p.offers(codec.LeaveGroup, 2) {
			return skip("the broker does not offer LeaveGroup v0-v2")
		}
		v := int16(2)
		if !p.offers(codec.LeaveGroup, 2) {
			v = 0
		}
		r := c.leaveGroup(v, g, codec.LeaveGroupMember{MemberId: p.id("m")})
		return want(r.ErrorCode == codec.UnknownMemberID, fmt.Sprintf("v%d: %s", v, lgString(r)), "top UNKNOWN_MEMBER_ID")
	}
}

// --- §B1, §B7 ---
func caseAVUnknown(p *probe) verdict {
	c := p.conn()
	h := c.header(codec.ApiVersions, 127)
	b, _ := codec.BeginFrame(nil)
	b, err := h.AppendTo(b, 2)
	if err != nil {
		return internalError("ApiVersions v127's header", err)
	}
	b = append(b, 0xde, 0xad) // a body no version parses: it must not be read
	if err := c.wire().WriteRaw(codec.FinishFrame(b, 0)); err != nil {
		return fail(err.Error(), "a response")
	}
	frame, err := c.wire().ReadFrame()
	if err != nil {
		return fail(err.Error(), "a v0 response")
	}
	rh, resp, err := codec.DecodeResponse(frame, codec.ApiVersions, 0, codec.DecodeOptions{})
	if err != nil {
		return fail("undecodable at v0: "+err.Error(), "a v0 response")
	}
	r := resp.(*codec.ApiVersionsResponse)
	var av []string
	ok := rh.CorrelationId == h.CorrelationId && r.ErrorCode == codec.UnsupportedVersion
	has := false
	for _, k := range r.ApiKeys {
		av = append(av, fmt.Sprintf("%v v%d-v%d", k.ApiKey, k.MinVersion, k.MaxVersion))
		has = has || k.ApiKey == codec.ApiVersions
	}
	return want(ok && has, fmt.Sprintf("%s %v", r.ErrorCode, av), "UNSUPPORTED_VERSION listing the ApiVersions range")
}

func caseAVBadName(p *probe) verdict {
	r := p.conn().do(codec.ApiVersions, 3, &codec.ApiVersionsRequest{ClientSoftwareName: "-bad name-", ClientSoftwareVersion: "1.0"}).(*codec.ApiVersionsResponse)
	return want(r.ErrorCode == codec.InvalidRequest, r.ErrorCode.String(), "INVALID_REQUEST")
}

// caseAVLists holds the broker's ApiVersions to the group apis the release
// it is held to lists by default (docs/PROTOCOL.md B13): each at least up
// to that release's highest version.
func caseAVLists(p *probe) verdict {
	r := p.held.Profile
	var obs, exp, missing []string
	for _, key := range []codec.APIKey{codec.JoinGroup, codec.SyncGroup, codec.Heartbeat, codec.LeaveGroup, codec.DescribeGroups, codec.ConsumerGroupHeartbeat, codec.ConsumerGroupDescribe} {
		rg, listed := r.Advertises(key)
		got, has := p.advertised[key]
		if has {
			obs = append(obs, fmt.Sprintf("%v v%d-v%d", key, got[0], got[1]))
		} else {
			obs = append(obs, fmt.Sprintf("no %v", key))
		}
		if !listed {
			continue
		}
		exp = append(exp, fmt.Sprintf("%v up to v%d", key, rg.Max))
		if !has || got[1] < rg.Max {
			missing = append(missing, key.String())
		}
	}
	o := strings.Join(obs, ", ")
	if len(missing) > 0 {
		o += "; short of " + r.String() + ": " + strings.Join(missing, ", ")
	}
	return want(len(missing) == 0, o, r.String()+" lists "+strings.Join(exp, ", "))
}

func caseDescribeMissing(p *probe) verdict {
	d := p.conn().describe(p.id("g"))
	return want(d.ErrorCode == codec.GroupIDNotFound, describeString(d), "GROUP_ID_NOT_FOUND")
}

func caseDescribeNames(p *probe) verdict {
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	c.mustJoin(p.joinReq(g, m))
	d := c.describe(g)
	var names []string
	ok := len(d.Members) == 1 && len(d.Members[0].Assignment.TopicPartitions) > 0
	if ok {
		for _, t := range d.Members[0].Assignment.TopicPartitions {
			names = append(names, fmt.Sprintf("%q", t.TopicName))
			ok = ok && t.TopicName == p.peer.Topic
		}
	}
	return want(ok, fmt.Sprintf("%s; assignment topic names %v", describeString(d), names), fmt.Sprintf("%q", p.peer.Topic))
}

func caseTrailing(p *probe) verdict {
	c := p.conn()
	key, v, req, say := p.mustHarmless(false)
	h := c.header(key, v)
	b, err := codec.AppendRequest(nil, h, req)
	if err != nil {
		return internalError(fmt.Sprintf("%v v%d", key, v), err)
	}
	b = append(b, 1, 2, 3)
	b = codec.FinishFrame(b, 0)
	if err := c.wire().WriteRaw(b); err != nil {
		return fail(err.Error(), "a response")
	}
	frame, err := c.wire().ReadFrame()
	if err != nil {
		return fail(err.Error(), "a response")
	}
	_, resp, err := codec.DecodeResponse(frame, key, v, codec.DecodeOptions{})
	if err != nil {
		return fail(err.Error(), "a response")
	}
	if d, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok && len(d.Groups) != 1 {
		return fail(say(resp), "a response")
	}
	return pass("answered: " + say(resp))
}

// closed sends a raw frame on a fresh connection and reports whether the
// broker closed it without answering; then checks the broker still serves.
func closed(p *probe, frame []byte, what string) verdict {
	c := p.conn()
	if err := c.wire().WriteRaw(frame); err != nil {
		return fail(err.Error(), "")
	}
	_, err := c.wire().ReadFrame()
	if err == nil {
		return fail(what+": answered", "the connection closed without a response")
	}
	if !isClosed(err) {
		return fail(what+": "+err.Error(), "the connection closed without a response")
	}
	// A broker that crashed on the request may close the connection on
	// its way down: give it a moment before checking it still serves.
	time.Sleep(100 * time.Millisecond)
	c2, err := p.dial(codec.Str("ghostcheck-check"))
	if err != nil {
		return fail(what+": connection closed, then the broker stopped serving (dial: "+err.Error()+")", "the broker to keep serving")
	}
	key, v, req, say := p.mustHarmless(false)
	resp, err := c2.try(c2.header(key, v), req)
	if ownError(err) {
		return internalError(fmt.Sprintf("%v v%d", key, v), err)
	}
	if err != nil {
		return fail(fmt.Sprintf("%s: connection closed, then the broker stopped serving (%v on a new connection: %v)", what, key, err), "the broker to keep serving")
	}
	if d, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok && len(d.Groups) != 1 {
		return fail(what+": connection closed; then "+say(resp), "the broker to keep serving")
	}
	return pass(what + ": connection closed; the broker still serves (" + say(resp) + ")")
}

func isClosed(err error) bool {
	return errors.Is(err, wire.ErrConnClosed)
}

// caseUnsupportedVersion asks an api the broker lists and serves at one
// version above its highest (an api it lacks is the unknown-key case's).
func caseUnsupportedVersion(p *probe) verdict {
	for _, key := range []codec.APIKey{codec.ConsumerGroupHeartbeat, codec.Heartbeat, codec.LeaveGroup, codec.DescribeGroups, codec.JoinGroup, codec.SyncGroup} {
		max := p.max(key)
		if max < 0 || max == 0x7fff {
			continue
		}
		c := p.conn()
		h := c.header(key, max+1)
		return closed(p, rawFrame(h, []byte{}), fmt.Sprintf("%v v%d (the broker lists v%d-v%d)", key, max+1, p.versions[key][0], max))
	}
	return skip("needs a group api the broker lists and serves (ConsumerGroupHeartbeat, Heartbeat, LeaveGroup, DescribeGroups, JoinGroup or SyncGroup); it serves none")
}

func caseUnknownKey(p *probe) verdict {
	h := &codec.RequestHeader{RequestApiKey: 1000, RequestApiVersion: 0, CorrelationId: 1}
	return closed(p, rawFrame(h, nil), "api key 1000")
}

// rawFrame builds a frame with a header v2 (whatever the key) and body.
func rawFrame(h *codec.RequestHeader, body []byte) []byte {
	b, _ := codec.BeginFrame(nil)
	b = append(b, byte(uint16(h.RequestApiKey)>>8), byte(h.RequestApiKey), byte(uint16(h.RequestApiVersion)>>8), byte(h.RequestApiVersion))
	b = append(b, byte(h.CorrelationId>>24), byte(h.CorrelationId>>16), byte(h.CorrelationId>>8), byte(h.CorrelationId))
	b = append(b, 0xff, 0xff, 0) // null ClientId, empty tags
	b = append(b, body...)
	return codec.FinishFrame(b, 0)
}
