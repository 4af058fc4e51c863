package model

// Clauses: the coordinator can count, per clause of docs/PROTOCOL.md (a
// section and a row or step of it), how often it applied it
// (Config.Clauses). `ghostcheck run --coverage` prints the counts of a
// whole run, so that a clause the generated plans never reach shows as 0
// instead of passing unnoticed. A clause is not a rule (package rules): a
// rule is what a run or a client is judged by; a clause is a line of the
// protocol the reference coordinator follows.

// Clause names one clause the coordinator applies: the docs/PROTOCOL.md
// section that states it, a slash, and which row or step of the section
// (e.g. "B4.2/instance-id-blank", "A3/row-6-fenced", "A5.3/step-3-revoke").
type Clause string

// ClauseCounter receives one Hit per application of a clause. It is
// called from the coordinator's goroutine only (the model is sequential).
type ClauseCounter interface {
	Hit(Clause)
}

// ClauseHits is a ClauseCounter that counts in a map.
type ClauseHits map[Clause]int

// Hit implements ClauseCounter.
func (h ClauseHits) Hit(id Clause) { h[id]++ }

// hit records that the coordinator applied clause id; a no-op without a
// counter.
func (c *Coordinator) hit(id Clause) {
	if c.cfg.Clauses != nil {
		c.cfg.Clauses.Hit(id)
	}
}

// ClauseInfo is one clause the coordinator can apply, and what it says.
type ClauseInfo struct {
	ID   Clause
	What string
}

// Clauses lists every clause the coordinator counts, in the order of
// docs/PROTOCOL.md. Each id's part before the slash is a section of it.
func Clauses() []ClauseInfo {
	out := make([]ClauseInfo, len(clauses))
	copy(out, clauses)
	return out
}

var clauses = []ClauseInfo{
	{"A1/v0-member-id-made", "a v0 join with MemberId \"\" gets an id the coordinator makes (§B4.4 step 3)"},
	{"A1/retried-join-in-place", "a join repeating a member id the group holds is accepted in place"},
	{"A1/static-retried-join-in-place", "a static member's join under its own id and instance is accepted in place"},
	{"A1/join-unreleased-instance", "a join by another member id naming an active member's instance is UNRELEASED_INSTANCE_ID"},
	{"A1/join-member-other-instance", "a join naming a member id the group holds under another instance id is INVALID_REQUEST"},
	{"A2/first-clientid-remembered", "a connection's first request sets the ClientId it is remembered by (null reads as \"\")"},
	{"A2/null-clientid-attributed-first", "a later request with a null ClientId is attributed to the connection's first"},
	{"A2/later-clientid-own", "a later request that sends a ClientId is attributed to its own"},
	{"A2/disconnect-forgets", "a closed connection's context is forgotten"},
	{"A3/invalid-group-id", "LeaveGroup with GroupId \"\" is INVALID_GROUP_ID (A3.3)"},
	{"A3/v0-v2-top-level", "LeaveGroup v0-v2: one member id, its result at the top level"},
	{"A3/v3-batch", "LeaveGroup v3+: one result per entry, top level NONE"},
	{"A3/row-1-admin-removal", "entry {\"\", held instance}: the holder is removed"},
	{"A3/row-2-empty-unknown", "entry {\"\", unknown or null instance}: UNKNOWN_MEMBER_ID"},
	{"A3/row-3-member-removed", "entry {a member's id, null}: that member is removed (A3.1)"},
	{"A3/row-4-not-member", "entry {not a member, null}: UNKNOWN_MEMBER_ID"},
	{"A3/row-5-unknown-instance", "entry {a member id, unknown instance}: UNKNOWN_MEMBER_ID"},
	{"A3/row-6-fenced", "entry {another member id, held instance}: FENCED_INSTANCE_ID"},
	{"A3/row-7-own-instance", "entry {the holder's id, its instance}: removed (A3.1)"},
	{"B5/missing-group", "LeaveGroup for a group that does not exist: every entry UNKNOWN_MEMBER_ID"},
	{"A3.2/one-bump-per-request", "the members one LeaveGroup removes move the group epoch once"},
	{"A3.2/batch-removes-several", "one LeaveGroup removes two or more members"},
	{"A5.1/member-joined", "a new member moves the group epoch on"},
	{"A5.1/subscription-changed", "a changed subscription moves the group epoch on"},
	{"A5.2/static-keyed-by-instance", "the assignor sorts a static subscriber by its instance id"},
	{"A5.3/step-1-pending-released", "owned partitions the request no longer reports are released"},
	{"A5.3/step-2-still-revoking", "a member with pending revocations waits"},
	{"A5.3/step-3-revoke", "partitions outside the target move to pending revocation"},
	{"A5.3/step-3-epoch-advanced", "a member with nothing to revoke takes the target epoch"},
	{"A5.3/step-4-assigned", "target partitions nobody else owns are assigned"},
	{"A5.3/step-4-unreleased", "a target partition another member still owns waits (UNRELEASED_PARTITIONS)"},
	{"A5.4/current-epoch", "a heartbeat at the member's epoch passes the epoch check"},
	{"A5.4/previous-epoch-accepted", "the previous epoch with owned partitions a subset of the assignment passes"},
	{"A5.4/epoch-ahead-fenced", "an epoch above the member's is FENCED_MEMBER_EPOCH"},
	{"A5.4/epoch-behind-fenced", "an older epoch (or the previous one without a subset report) is FENCED_MEMBER_EPOCH"},
	{"A5.5/takeover", "a new member id takes over a parked static member (no epoch bump)"},
	{"A5.5/parked-resumes", "a parked static member rejoins under its own id (no epoch bump)"},
	{"A5.6/rebalance-timer-started", "a member entering UNREVOKED_PARTITIONS starts its rebalance timer"},
	{"A5.6/rebalance-timeout-removes", "a rebalance timeout removes a member still revoking"},
	{"A5.7/assignment-on-join", "a join's response carries the assignment"},
	{"A5.7/assignment-full-request", "a full heartbeat's response carries the assignment"},
	{"A5.7/assignment-full-by-regex", "a full heartbeat subscribed by regex alone carries the assignment"},
	{"A5.7/assignment-changed", "a heartbeat whose assignment changed carries it"},
	{"A5.7/no-assignment", "a plain heartbeat with nothing changed carries no assignment"},
	{"B4.2/member-id-blank", "MemberId blank where it is required (v1+, epoch > 0, epoch -1): INVALID_REQUEST"},
	{"B4.2/group-id-blank", "GroupId blank: INVALID_REQUEST"},
	{"B4.2/instance-id-blank", "InstanceId non-null and blank: INVALID_REQUEST"},
	{"B4.2/rack-id-blank", "RackId non-null and blank: INVALID_REQUEST"},
	{"B4.2/join-without-rebalance-timeout", "a join with RebalanceTimeoutMs -1: INVALID_REQUEST"},
	{"B4.2/join-topic-partitions", "a join with TopicPartitions null or non-empty: INVALID_REQUEST"},
	{"B4.2/join-without-subscription", "a join with neither names nor regex: INVALID_REQUEST"},
	{"B4.2/static-leave-null-instance", "epoch -2 with InstanceId null: INVALID_REQUEST"},
	{"B4.2/epoch-invalid", "an epoch below -2: INVALID_REQUEST"},
	{"B4.2/unsupported-assignor", "a ServerAssignor not configured: UNSUPPORTED_ASSIGNOR"},
	{"B4.4/group-created", "a join creates its group"},
	{"B4.4/group-not-found", "a heartbeat for a group that does not exist: GROUP_ID_NOT_FOUND"},
	{"B4.4/group-max-size", "a full group refuses a new member: GROUP_MAX_SIZE_REACHED"},
	{"B4.4/unknown-member", "a heartbeat for a member id the group does not hold: UNKNOWN_MEMBER_ID"},
	{"B4.4/static-unknown-instance", "a static heartbeat naming an instance nobody holds: UNKNOWN_MEMBER_ID"},
	{"B4.4/static-fenced-instance", "a static heartbeat naming another member's instance: FENCED_INSTANCE_ID"},
	{"B4.4/invalid-regex", "a regex that does not compile: INVALID_REGULAR_EXPRESSION"},
	{"B4.4/leave-group-not-found", "a leave for a group that does not exist: GROUP_ID_NOT_FOUND"},
	{"B4.4/leave-unknown-member", "a dynamic leave for an unknown member id: UNKNOWN_MEMBER_ID"},
	{"B4.4/leave-removes", "a leave at -1 removes the member"},
	{"B4.4/leave-unknown-instance", "a static leave naming an instance nobody holds: UNKNOWN_MEMBER_ID"},
	{"B4.4/leave-fenced-instance", "a static leave naming another member's instance: FENCED_INSTANCE_ID"},
	{"B4.4/leave-parks", "a static leave at -2 parks the member (pending revocations dropped)"},
	{"B4.4/session-timeout", "a session timeout removes a member"},
	{"B4.4/parked-session-timeout", "a session timeout removes a member parked at -2"},
	{"B4.4/restart-restarts-timers", "a coordinator restart starts every session (and revocation) timer afresh"},
	{"B6/get-v1-header-id", "GetTelemetrySubscriptions v1 takes the header's id"},
	{"B6/get-v1-invalid-id", "GetTelemetrySubscriptions v1 without a usable header id: INVALID_REQUEST"},
	{"B6/get-v0-id-kept", "GetTelemetrySubscriptions v0 keeps a non-zero body id"},
	{"B6/get-v0-id-assigned", "GetTelemetrySubscriptions v0 with the zero id gets one assigned"},
	{"B6/get-throttled", "a Get within the push interval: THROTTLING_QUOTA_EXCEEDED"},
	{"B6/push-invalid-id", "a push whose id is null or reserved: INVALID_REQUEST"},
	{"B6/push-after-terminating", "a push after a terminating push: INVALID_REQUEST"},
	{"B6/push-throttled", "a push within the push interval: THROTTLING_QUOTA_EXCEEDED"},
	{"B6/push-unknown-subscription", "a push without a fetched subscription, or a wrong one: UNKNOWN_SUBSCRIPTION_ID"},
	{"B6/push-unsupported-compression", "a push with a compression type not accepted: UNSUPPORTED_COMPRESSION_TYPE"},
	{"B6/push-too-large", "a push over TelemetryMaxBytes: TELEMETRY_TOO_LARGE"},
	{"B6/push-accepted", "a push is accepted"},
	{"B7.1/bad-software-name", "ApiVersions v3+ with a bad client software name: INVALID_REQUEST"},
	{"B7.1/versions-answered", "ApiVersions answers the advertised versions"},
	{"B7.2/invalid-group-id", "Describe of GroupId \"\": INVALID_GROUP_ID"},
	{"B7.2/group-not-found", "Describe of a group that does not exist: GROUP_ID_NOT_FOUND"},
	{"B7.2/group-described", "Describe of a group that exists"},
	{"B1.1/unsupported-request", "a request above the advertised version is refused without a response"},
}
