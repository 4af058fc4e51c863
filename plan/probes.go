package plan

// ProbeKind is a request a well-behaved client never sends, which a
// coordinator must still answer by the rules: the prober sends them.
type ProbeKind string

// The probes.
const (
	// ProbeEmptyMemberID: a ConsumerGroupHeartbeat v1 join with an empty
	// member id (KIP-1082: INVALID_REQUEST, and no member made).
	ProbeEmptyMemberID ProbeKind = "v1-join-empty-member-id"
	// ProbeZeroInstanceID: GetTelemetrySubscriptions v1 whose header
	// carries the zero UUID as client instance id (INVALID_REQUEST).
	ProbeZeroInstanceID ProbeKind = "telemetry-zero-instance-id"
	// ProbeNoInstanceID: PushTelemetry v1 whose header carries no client
	// instance id (INVALID_REQUEST).
	ProbeNoInstanceID ProbeKind = "telemetry-no-instance-id"
	// ProbeStaleHeartbeat: a heartbeat for a member the observer last saw,
	// with an epoch far ahead or, for an odd Pick and a member a live
	// process holds, one ahead of the one it saw (FENCED_MEMBER_EPOCH,
	// unless the member moved on since; an error must not refresh the
	// member's session).
	ProbeStaleHeartbeat ProbeKind = "stale-heartbeat"
	// ProbePreviousEpoch: a heartbeat for a member the observer last saw,
	// one epoch behind, with TopicPartitions null: only a report of owned
	// partitions may excuse the previous epoch (A5.4), so it is fenced.
	ProbePreviousEpoch ProbeKind = "previous-epoch-null-owned"
	// ProbeInvalidHeartbeat: a ConsumerGroupHeartbeat that breaks a rule
	// of §B4.2 or §B4.4 without changing anything (Probe.Variant picks
	// which).
	ProbeInvalidHeartbeat ProbeKind = "invalid-heartbeat"
	// ProbeOtherInstance: a join naming the member id of a live member
	// with an instance id it does not hold (A1: INVALID_REQUEST).
	ProbeOtherInstance ProbeKind = "join-member-other-instance"
	// ProbeTelemetry: a telemetry request with a reserved or zero id at v0
	// or v1, or a short sequence under a fresh instance id that meets one
	// of §B6's refusals (Probe.Variant picks which).
	ProbeTelemetry ProbeKind = "telemetry"
	// ProbeOddRequest: a Describe or LeaveGroup of the empty or a missing
	// group, an ApiVersions with a bad software name, or a request above a
	// version the broker caps (Probe.Variant picks which).
	ProbeOddRequest ProbeKind = "odd-request"
	// ProbeInstanceAsMemberID: a valid join whose member id is a live
	// static member's instance id, then its leave: the assignor orders
	// the two by member id when their keys tie (A5.2).
	ProbeInstanceAsMemberID ProbeKind = "join-instance-as-member-id"
	// ProbePreviousEpochUnknownTopic: ProbePreviousEpoch reporting an
	// owned partition of a topic the coordinator does not know: not a
	// subset of the assignment, so it is fenced (A5.4).
	ProbePreviousEpochUnknownTopic ProbeKind = "previous-epoch-unknown-topic"
)

// Probe is one request of the prober.
type Probe struct {
	Round int       `json:"round"`
	Kind  ProbeKind `json:"kind"`
	Group string    `json:"group"`
	// Pick chooses the member (of those last described) a stale
	// heartbeat names.
	Pick int `json:"pick,omitempty"`
	// Variant chooses among a probe kind's variants.
	Variant int `json:"variant,omitempty"`
}

// ProbeKinds lists every probe.
func ProbeKinds() []ProbeKind {
	return append(append(identityProbeKinds(), refusalProbeKinds()...), assignmentProbeKinds()...)
}

// identityProbeKinds are the probes of how a coordinator treats a client's
// identity (an empty member id at v1, a zero or missing client instance
// id, an epoch far ahead), the ones drawProbes draws from (its draws index
// this list, so it never grows: a seed keeps its plan).
func identityProbeKinds() []ProbeKind {
	return []ProbeKind{ProbeEmptyMemberID, ProbeZeroInstanceID, ProbeNoInstanceID, ProbeStaleHeartbeat}
}

// refusalProbeKinds are the probes of the requests a coordinator must
// refuse (a rule of §B4.2, §B4.4 or §B6 broken, a group that is not
// there, a version above the broker's), the ones drawRefusalProbes draws
// from.
func refusalProbeKinds() []ProbeKind {
	return []ProbeKind{ProbePreviousEpoch, ProbeInvalidHeartbeat, ProbeOtherInstance, ProbeTelemetry, ProbeOddRequest}
}

// assignmentProbeKinds are the probes of the assignment's corners (the
// assignor's order of tied members, A5.2; owned partitions that are no
// subset of the assignment, A5.4), the ones drawRareInputs draws from.
func assignmentProbeKinds() []ProbeKind {
	return []ProbeKind{ProbeInstanceAsMemberID, ProbePreviousEpochUnknownTopic}
}

// drawProbes draws the identity probes, one every few rounds.
func drawProbes(d drawer, groups []string, rounds int) []Probe {
	var out []Probe
	for r := 2 + d.intn("probe start", 4); r < rounds; r += 2 + d.intn("probe gap", 5) {
		kinds := identityProbeKinds()
		out = append(out, Probe{Round: r, Kind: kinds[d.intn("probe kind", len(kinds))],
			Group: groups[d.intn("probe group", len(groups))], Pick: d.intn("probe pick", 16)})
	}
	return out
}

// TelemetryProbeMaxBytes is the payload limit of plans with the refusal
// probes: above what clients push ("metrics"), below what the too-large
// telemetry probe pushes.
const TelemetryProbeMaxBytes = 64

// drawRefusalProbes draws the refusal probes, about one every six rounds.
func drawRefusalProbes(d drawer, groups []string, rounds int) []Probe {
	var out []Probe
	kinds := refusalProbeKinds()
	for r := 3 + d.intn("refusal probes start", 6); r < rounds; r += 3 + d.intn("refusal probes gap", 6) {
		out = append(out, Probe{Round: r, Kind: kinds[d.intn("refusal probe kind", len(kinds))],
			Group: groups[d.intn("refusal probe group", len(groups))], Pick: d.intn("refusal probe pick", 16), Variant: d.intn("refusal probe variant", 64)})
	}
	return out
}
