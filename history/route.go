package history

// Route is how a request reached the broker that answered it, in a
// cluster: the broker, and the steps on the way that a client of a
// cluster takes and a single broker never asks for (a coordinator error
// answered and retried, a coordinator that moved, a wait before trying
// again, a broker that could not be reached). None of them is judged by
// itself: a coordinator error is the cluster's to retry, never an answer
// the check holds against the protocol. A history of a broker standing
// alone has none.
type Route struct {
	// Broker is the broker that answered (-1: none did).
	Broker int32 `json:"broker"`
	// Steps are what routing met, in order.
	Steps []RouteStep `json:"steps,omitempty"`
}

// RouteStep is one step of a Route. It never holds an error's text or an
// address: a history replays on other machines against other clusters.
type RouteStep struct {
	// Kind is what happened: one of wire.EventKind's names
	// (coordinator-found, coordinator-error, broker-unreachable,
	// connection-lost, redialed, bad-answer, retry, gave-up) or one of
	// the target's own (StepNewConnection, StepClientIDResent,
	// StepReset).
	Kind string `json:"kind"`
	// Broker is the broker concerned (-1: none, or a bootstrap address).
	Broker int32 `json:"broker"`
	// From is, for a coordinator found again, the one before.
	From *int32 `json:"from,omitempty"`
	// Code is the error code a coordinator error answered.
	Code string `json:"code,omitempty"`
	// Attempt counts a retry's tries; WaitMs is the wait before it.
	Attempt int   `json:"attempt,omitempty"`
	WaitMs  int64 `json:"waitMs,omitempty"`
}

// The steps a cluster target takes on its own.
const (
	// StepNewConnection: the process had no connection to Broker, where
	// the request goes (its group's coordinator moved there, or it talks
	// to a new broker): one was opened.
	StepNewConnection = "new-connection"
	// StepClientIDResent: the first request on a connection the target
	// opened in place of another carried the process's first ClientId,
	// which the driver's header left null (KIP-1313: a client's first
	// request on every connection carries it).
	StepClientIDResent = "client-id-resent"
	// StepReset: the target reset the process's connection to Broker
	// before the request (a cluster fault).
	StepReset = "connection-reset"
)
