package rules

import "github.com/ghostcheck/ghostcheck/codec"

// The KIP-1313 header rules CheckRequestHeader reports.
const (
	RuleClientInstanceIDInHeader    Rule = "ClientInstanceIDInHeader"
	meaningClientInstanceIDInHeader      = "every request header v2 carries the client's own instance id in tag 0 (KIP-1313)"

	RuleClientIDOnFirstRequest    Rule = "ClientIDOnFirstRequest"
	meaningClientIDOnFirstRequest      = "ClientId rides on a connection's first request only, null after (KIP-1313)"
)

// CheckRequestHeader holds a client's request header to KIP-1313: a header
// v2 carries the client's own instance id (never zero) in tag 0; ClientId is
// the client's on the first request of a connection and null after it.
func CheckRequestHeader(h *codec.RequestHeader, instanceID codec.UUID, clientID string, firstOnConn bool) error {
	if hv, err := h.HeaderVersion(); err == nil && hv >= 2 {
		switch {
		case !h.ClientInstanceId.Valid:
			return violation(RuleClientInstanceIDInHeader, "%v v%d request %d has no client instance id in header tag 0", h.RequestApiKey, h.RequestApiVersion, h.CorrelationId)
		case h.ClientInstanceId.UUID.IsZero():
			return violation(RuleNoZeroUUIDs, "%v v%d request %d sends the zero UUID as client instance id", h.RequestApiKey, h.RequestApiVersion, h.CorrelationId)
		case h.ClientInstanceId.UUID != instanceID:
			return violation(RuleClientInstanceIDInHeader, "%v v%d request %d sends client instance id %s, not the client's %s", h.RequestApiKey, h.RequestApiVersion, h.CorrelationId, h.ClientInstanceId.UUID, instanceID)
		}
	}
	if firstOnConn && (!h.ClientId.Valid || h.ClientId.Value != clientID) {
		return violation(RuleClientIDOnFirstRequest, "the first request of a connection carries ClientId %v, want %q", h.ClientId, clientID)
	}
	if !firstOnConn && h.ClientId.Valid {
		return violation(RuleClientIDOnFirstRequest, "a later request of a connection carries ClientId %q, want null", h.ClientId.Value)
	}
	return nil
}
