package codec

import "strconv"

// ErrorCode is a Kafka protocol error code (docs/PROTOCOL.md §B9).
type ErrorCode int16

// The error codes the messages here can carry.
const (
	UnknownServerError         ErrorCode = -1
	None                       ErrorCode = 0
	CorruptMessage             ErrorCode = 2
	UnknownTopicOrPartition    ErrorCode = 3
	RequestTimedOut            ErrorCode = 7
	NetworkException           ErrorCode = 13
	CoordinatorLoadInProgress  ErrorCode = 14
	CoordinatorNotAvailable    ErrorCode = 15
	NotCoordinator             ErrorCode = 16
	IllegalGeneration          ErrorCode = 22
	InconsistentGroupProtocol  ErrorCode = 23
	InvalidGroupID             ErrorCode = 24
	UnknownMemberID            ErrorCode = 25
	InvalidSessionTimeout      ErrorCode = 26
	RebalanceInProgress        ErrorCode = 27
	TopicAuthorizationFailed   ErrorCode = 29
	GroupAuthorizationFailed   ErrorCode = 30
	UnsupportedSaslMechanism   ErrorCode = 33
	IllegalSaslState           ErrorCode = 34
	UnsupportedVersion         ErrorCode = 35
	InvalidRequest             ErrorCode = 42
	SaslAuthenticationFailed   ErrorCode = 58
	NonEmptyGroup              ErrorCode = 68
	GroupIDNotFound            ErrorCode = 69
	UnsupportedCompressionType ErrorCode = 76
	MemberIDRequired           ErrorCode = 79
	GroupMaxSizeReached        ErrorCode = 81
	FencedInstanceID           ErrorCode = 82
	InvalidRecord              ErrorCode = 87
	ThrottlingQuotaExceeded    ErrorCode = 89
	UnknownTopicID             ErrorCode = 100
	FencedMemberEpoch          ErrorCode = 110
	UnreleasedInstanceID       ErrorCode = 111
	UnsupportedAssignor        ErrorCode = 112
	StaleMemberEpoch           ErrorCode = 113
	UnknownSubscriptionID      ErrorCode = 117
	TelemetryTooLarge          ErrorCode = 118
	InvalidRegularExpression   ErrorCode = 128
	RebootstrapRequired        ErrorCode = 129
)

var errorNames = map[ErrorCode]string{
	UnknownServerError:         "UNKNOWN_SERVER_ERROR",
	None:                       "NONE",
	CorruptMessage:             "CORRUPT_MESSAGE",
	UnknownTopicOrPartition:    "UNKNOWN_TOPIC_OR_PARTITION",
	RequestTimedOut:            "REQUEST_TIMED_OUT",
	NetworkException:           "NETWORK_EXCEPTION",
	CoordinatorLoadInProgress:  "COORDINATOR_LOAD_IN_PROGRESS",
	CoordinatorNotAvailable:    "COORDINATOR_NOT_AVAILABLE",
	NotCoordinator:             "NOT_COORDINATOR",
	IllegalGeneration:          "ILLEGAL_GENERATION",
	InconsistentGroupProtocol:  "INCONSISTENT_GROUP_PROTOCOL",
	InvalidGroupID:             "INVALID_GROUP_ID",
	UnknownMemberID:            "UNKNOWN_MEMBER_ID",
	InvalidSessionTimeout:      "INVALID_SESSION_TIMEOUT",
	RebalanceInProgress:        "REBALANCE_IN_PROGRESS",
	TopicAuthorizationFailed:   "TOPIC_AUTHORIZATION_FAILED",
	GroupAuthorizationFailed:   "GROUP_AUTHORIZATION_FAILED",
	UnsupportedSaslMechanism:   "UNSUPPORTED_SASL_MECHANISM",
	IllegalSaslState:           "ILLEGAL_SASL_STATE",
	UnsupportedVersion:         "UNSUPPORTED_VERSION",
	InvalidRequest:             "INVALID_REQUEST",
	SaslAuthenticationFailed:   "SASL_AUTHENTICATION_FAILED",
	NonEmptyGroup:              "NON_EMPTY_GROUP",
	GroupIDNotFound:            "GROUP_ID_NOT_FOUND",
	UnsupportedCompressionType: "UNSUPPORTED_COMPRESSION_TYPE",
	MemberIDRequired:           "MEMBER_ID_REQUIRED",
	GroupMaxSizeReached:        "GROUP_MAX_SIZE_REACHED",
	FencedInstanceID:           "FENCED_INSTANCE_ID",
	InvalidRecord:              "INVALID_RECORD",
	ThrottlingQuotaExceeded:    "THROTTLING_QUOTA_EXCEEDED",
	UnknownTopicID:             "UNKNOWN_TOPIC_ID",
	FencedMemberEpoch:          "FENCED_MEMBER_EPOCH",
	UnreleasedInstanceID:       "UNRELEASED_INSTANCE_ID",
	UnsupportedAssignor:        "UNSUPPORTED_ASSIGNOR",
	StaleMemberEpoch:           "STALE_MEMBER_EPOCH",
	UnknownSubscriptionID:      "UNKNOWN_SUBSCRIPTION_ID",
	TelemetryTooLarge:          "TELEMETRY_TOO_LARGE",
	InvalidRegularExpression:   "INVALID_REGULAR_EXPRESSION",
	RebootstrapRequired:        "REBOOTSTRAP_REQUIRED",
}

// String returns Kafka's name for the code, e.g. "FENCED_MEMBER_EPOCH", or
// "ERROR_CODE(n)" for a code not listed here.
func (c ErrorCode) String() string {
	if s, ok := errorNames[c]; ok {
		return s
	}
	return "ERROR_CODE(" + strconv.Itoa(int(c)) + ")"
}

// Known reports whether the code is one listed here.
func (c ErrorCode) Known() bool { _, ok := errorNames[c]; return ok }

// ErrorCodes lists every named code.
func ErrorCodes() []ErrorCode {
	out := make([]ErrorCode, 0, len(errorNames))
	for c := range errorNames {
		out = append(out, c)
	}
	return out
}
