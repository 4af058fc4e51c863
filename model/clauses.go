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
	{"A6.1/member-id-required", "JoinGroup v4+, MemberId \"\", GroupInstanceId null, accepted by B8.6's earlier checks: makes an id, keeps it pending with the request's session timeout, answers MEMBER_ID_REQUIRED with it; the group's state is unchanged"},
	{"A6.1/v3-member-added", "the same join at v0–v3: adds a new member at once (B8.6, new member)"},
	{"A6.1/pending-joins", "JoinGroup naming a pending id, GroupInstanceId null: the id becomes a new member (B8.6, new member)"},
	{"A6.1/pending-with-instance", "JoinGroup naming a pending id with a GroupInstanceId: UNKNOWN_SERVER_ERROR, nothing changes"},
	{"A6.1/pending-expired", "a pending id's session timeout fires: the id is dropped; in PreparingRebalance the join phase completes if every member waits in it (B8.7)"},
	{"A6.1/pending-not-member", "Heartbeat or SyncGroup naming a pending id (counted instead of B8.4/member-unknown): UNKNOWN_MEMBER_ID: it is not a member"},
	{"A6.2/new-static-member", "JoinGroup, MemberId \"\", an instance nobody holds: adds a static member (B8.6, new member)"},
	{"A6.2/replaced-stable", "MemberId \"\", a held instance, Stable, selected protocol unchanged: replaces old by new, answers NONE at the current generation, no rebalance"},
	{"A6.2/replaced-leader-skip-assignment", "the same at v9+, new leads: Members and SkipAssignment true in the answer"},
	{"A6.2/replaced-protocol-changes", "MemberId \"\", a held instance, Stable, selected protocol would change: replaces, then rebalances"},
	{"A6.2/replaced-completing", "MemberId \"\", a held instance, CompletingRebalance: replaces, then rebalances"},
	{"A6.2/replaced-preparing", "MemberId \"\", a held instance, PreparingRebalance: replaces; new waits in the join phase"},
	{"A6.2/old-request-fenced", "old had a JoinGroup or SyncGroup waiting when it was replaced: that request answered FENCED_INSTANCE_ID"},
	{"A6.2/static-kept-not-rejoined", "a join phase completes and a static member did not rejoin: it stays in the new generation"},
	{"A6.3/admin-removal", "entry {\"\", a held instance}: removes the holder, NONE"},
	{"A6.3/empty-unknown", "entry {\"\", null or an instance nobody holds}: UNKNOWN_MEMBER_ID"},
	{"A6.3/pending-dropped", "entry naming a pending id: drops it, NONE"},
	{"A6.3/fenced-instance", "entry {a member id, an instance another member holds}: FENCED_INSTANCE_ID"},
	{"A6.3/unknown-instance", "entry {a member id, an instance nobody holds}: UNKNOWN_MEMBER_ID"},
	{"A6.3/unknown-member", "entry {not a member, null}: UNKNOWN_MEMBER_ID"},
	{"A6.3/member-removed", "entry {a member's id, null or its own instance}: removes it, NONE"},
	{"A6.3/removed-join-answered", "a removed member had a JoinGroup waiting: that JoinGroup answered UNKNOWN_MEMBER_ID"},
	{"A6.3/removed-sync-unanswered", "a removed member had a SyncGroup waiting: that SyncGroup is dropped, never answered"},
	{"A6.3/leave-rebalances", "some entry NONE, group Stable or CompletingRebalance: one rebalance (B8.7)"},
	{"A6.3/leave-completes-join", "some entry NONE, PreparingRebalance, not the first rebalance, every member waiting: the join phase completes (B8.7)"},
	{"A6.4/join-replaces-consumer-group", "JoinGroup to a consumer group with no member: removes it, makes a classic group, goes on as B8.6"},
	{"A6.4/join-mixed-refused", "JoinGroup to a consumer group with members: outside the model: closes the connection without a response (A6.5)"},
	{"A6.4/sync-consumer-group", "SyncGroup to a consumer group: UNKNOWN_MEMBER_ID, or FENCED_INSTANCE_ID by the member check"},
	{"A6.4/heartbeat-consumer-group", "Heartbeat to a consumer group: UNKNOWN_MEMBER_ID, or FENCED_INSTANCE_ID by the member check"},
	{"A6.4/describe-consumer-group", "DescribeGroups of a consumer group: as a missing group (B8.13)"},
	{"A6.4/heartbeat-replaces-classic-group", "ConsumerGroupHeartbeat join to an Empty classic group: removes it (pending ids with it), makes a consumer group, goes on as B4.4"},
	{"A6.4/upgrade-refused", "ConsumerGroupHeartbeat join to a non-empty classic group: outside the model: closes the connection without a response (A6.5)"},
	{"A6.4/heartbeat-classic-not-found", "ConsumerGroupHeartbeat at another epoch, or ConsumerGroupDescribe, for a classic group: GROUP_ID_NOT_FOUND"},
	{"A6.5/member-id-made", "a member or pending id is made: clientId- or instanceId- and a UUID from the id source"},
	{"A6.5/leader-smallest-id", "the leader is removed, or did not rejoin a completed phase: the smallest eligible member id leads"},
	{"A6.5/protocol-tie", "two or more protocols have the most votes: the smallest name is selected"},
	{"A6.5/superseded-not-coordinator", "a member's JoinGroup or SyncGroup arrives while another of its own waits: the waiting one answered NOT_COORDINATOR"},
	{"A6.5/closed-connection-answer-dropped", "a waiting request's answer is due after its connection closed: the answer is dropped; the state change stands"},
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
	{"B8.4/sync-null-protocol", "SyncGroup v5 with ProtocolType or ProtocolName null: INCONSISTENT_GROUP_PROTOCOL"},
	{"B8.4/invalid-group-id", "JoinGroup, SyncGroup, Heartbeat or LeaveGroup with GroupId \"\": INVALID_GROUP_ID"},
	{"B8.4/invalid-session-timeout", "JoinGroup with SessionTimeoutMs out of bounds: INVALID_SESSION_TIMEOUT"},
	{"B8.4/v0-rebalance-timeout", "JoinGroup v0: the session timeout stands for the rebalance timeout"},
	{"B8.4/member-fenced", "the member check: the instance is held by another member id: FENCED_INSTANCE_ID"},
	{"B8.4/member-unknown-instance", "the member check: nobody holds the instance: UNKNOWN_MEMBER_ID"},
	{"B8.4/member-unknown", "the member check: the member id is not a member: UNKNOWN_MEMBER_ID"},
	{"B8.5/connection-held", "a request arrives on a connection whose JoinGroup or SyncGroup waits: it is not read until that one is answered"},
	{"B8.6/group-created", "MemberId \"\" for a missing group: makes an Empty classic group at generation 0"},
	{"B8.6/missing-group-unknown-member", "MemberId non-empty for a missing group: UNKNOWN_MEMBER_ID, nothing made"},
	{"B8.6/inconsistent-protocol", "step 4 fails: INCONSISTENT_GROUP_PROTOCOL"},
	{"B8.6/new-member-added", "a new member is added (v0–v3 \"\", a pending id joining, a new static member): added, new; leader if none; the join waits"},
	{"B8.6/existing-preparing", "a member's JoinGroup in PreparingRebalance: protocols and timeouts stored; the join waits"},
	{"B8.6/existing-completing-same", "CompletingRebalance, unchanged protocols: the current generation at once (Members for the leader)"},
	{"B8.6/existing-completing-changed", "CompletingRebalance, changed protocols: stored; a rebalance"},
	{"B8.6/stable-leader-rejoins", "Stable, the leader: stored; a rebalance"},
	{"B8.6/stable-follower-changed", "Stable, a follower with changed protocols: stored; a rebalance"},
	{"B8.6/stable-follower-same", "Stable, a follower with unchanged protocols: the current generation at once, Members []"},
	{"B8.6/join-replaced", "a member's JoinGroup arrives while another of its own waits: the new one waits in its place; the old one: A6.5"},
	{"B8.7/rebalance-started", "a rebalance starts from Stable or CompletingRebalance: PreparingRebalance; waiting SyncGroups REBALANCE_IN_PROGRESS; assignments cleared if CompletingRebalance"},
	{"B8.7/first-rebalance-started", "the first member of an Empty group is added: PreparingRebalance with the initial delay"},
	{"B8.7/first-rebalance-extended", "the initial delay fires, a new member came, time is left: waits again"},
	{"B8.7/completed-all-joined", "every member waits and no id is pending (not in the first rebalance): completes at once"},
	{"B8.7/completed-by-timer", "the join timer or the initial delay fires: completes"},
	{"B8.7/dynamic-removed-not-rejoined", "completion, a dynamic member did not rejoin: removed"},
	{"B8.7/nobody-rejoined", "completion, members remain but none rejoined: the join timer starts again; no new generation"},
	{"B8.7/leader-moved", "completion, the leader did not rejoin: a member that rejoined leads"},
	{"B8.7/generation-empty", "completion with no member left: generation + 1, Empty"},
	{"B8.7/generation-completing", "completion with members: generation + 1, protocol selected, CompletingRebalance, joins answered, sessions restarted, sync timer started"},
	{"B8.8/unknown-group", "SyncGroup to a missing or Empty group: UNKNOWN_MEMBER_ID"},
	{"B8.8/illegal-generation", "GenerationId is not the group's: ILLEGAL_GENERATION"},
	{"B8.8/inconsistent-protocol", "a given ProtocolType or ProtocolName differs from the group's: INCONSISTENT_GROUP_PROTOCOL"},
	{"B8.8/rebalancing", "PreparingRebalance: REBALANCE_IN_PROGRESS"},
	{"B8.8/follower-waits", "CompletingRebalance, not the leader: waits"},
	{"B8.8/leader-assigns", "CompletingRebalance, the leader: stores the assignment, Stable, every waiting SyncGroup answered"},
	{"B8.8/missing-assignment-empty", "the leader gave a member no entry: that member's assignment is empty bytes"},
	{"B8.8/stable-current", "Stable: the member's assignment at once"},
	{"B8.8/sync-replaced", "a member's SyncGroup arrives while another of its own waits: the new one waits in its place; the old one: A6.5"},
	{"B8.9/unknown-group", "Heartbeat to a missing group: UNKNOWN_MEMBER_ID"},
	{"B8.9/illegal-generation", "GenerationId is not the group's: ILLEGAL_GENERATION"},
	{"B8.9/rebalancing", "PreparingRebalance: REBALANCE_IN_PROGRESS, session refreshed"},
	{"B8.9/ok", "CompletingRebalance or Stable: NONE, session refreshed"},
	{"B8.10/session-expired", "a member's session fires, not new, nothing waiting: removed"},
	{"B8.10/session-kept-waiting", "a member's session fires, not new, its JoinGroup or SyncGroup waits: kept, no timer"},
	{"B8.10/new-member-expired", "a new member's 5-minute timeout fires: removed; its JoinGroup answered UNKNOWN_MEMBER_ID"},
	{"B8.10/expiry-rebalances", "a removal by a timer in Stable or CompletingRebalance: a rebalance"},
	{"B8.10/expiry-completes-join", "a removal or pending expiry in PreparingRebalance, every member left waiting: the phase completes"},
	{"B8.10/sync-expired", "the sync timer fires, some member has not synced: those members removed; a rebalance"},
	{"B8.10/sync-expired-replaced-id", "the sync timer fires and the only one not synced is an id a static restart replaced: a rebalance, no one removed"},
	{"B8.11/group-full", "the cap refuses a JoinGroup: GROUP_MAX_SIZE_REACHED; its member or pending id removed"},
	{"B8.13/described-stable", "a Stable classic group: state, protocol, members with metadata and assignment"},
	{"B8.13/described-other", "a classic group in another state: state, protocol type, members with their assignment, no metadata"},
	{"B8.13/not-found-v6", "v6, a missing or non-classic group: GROUP_ID_NOT_FOUND, \"Dead\""},
	{"B8.13/dead-v0-v5", "v0–v5, a missing or non-classic group: NONE, \"Dead\", no members"},
	{"B8.14/recorded", "one of the four writes above: the record is the group's state as of now"},
	{"B8.14/waiting-not-coordinator", "a restart with JoinGroups (PreparingRebalance) or SyncGroups (CompletingRebalance, Stable) waiting: each answered NOT_COORDINATOR"},
	{"B8.14/reloaded", "a restart: every classic group replaced by its last record, Stable or Empty, sessions started afresh"},
	{"B1.1/unsupported-request", "a request above the advertised version is refused without a response"},
}
