package rules

// Member epochs with a meaning of their own (docs/PROTOCOL.md §B3.4): what
// a client sends, a coordinator answers and the checks read.
const (
	JoinEpoch        int32 = 0
	LeaveEpoch       int32 = -1
	StaticLeaveEpoch int32 = -2
)

// MemberIDRequiredVersion is the ConsumerGroupHeartbeat version from which
// the client must send its own member id on every request (KIP-1082).
const MemberIDRequiredVersion = 1
