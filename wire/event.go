package wire

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// EventKind says what happened on the way to a group's coordinator.
type EventKind uint8

const (
	// CoordinatorFound: FindCoordinator named the group's coordinator
	// (Broker), replacing Previous (-1: none was known).
	CoordinatorFound EventKind = iota + 1
	// CoordinatorError: Broker answered the request with Code, one of
	// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE (the coordinator is
	// forgotten and found again) or COORDINATOR_LOAD_IN_PROGRESS (it is
	// kept: the broker is the coordinator, still loading the group).
	CoordinatorError
	// BrokerUnreachable: a connection to Broker could not be made; nothing
	// was sent. Err says why.
	BrokerUnreachable
	// ConnectionLost: the connection to Broker failed with the request on
	// it: its outcome is unknown, so it is not retried (Err says how). The
	// group's coordinator is forgotten, as Kafka's clients do on a
	// disconnect.
	ConnectionLost
	// Redialed: Broker had closed a connection while it was idle (as a
	// broker does after connections.max.idle.ms); a new one was made
	// before the request, which was then sent once.
	Redialed
	// BadAnswer: Broker's FindCoordinator answer could not be used (it
	// names no coordinator for the group, or one with an impossible id,
	// host or port); Err says why. Another broker is asked.
	BadAnswer
	// Retry: the request is tried again, the Attempt-th time, after Wait.
	Retry
	// GaveUp: the retry budget is spent; the call returns a *RetryError.
	GaveUp
)

var eventKindNames = [...]string{CoordinatorFound: "coordinator-found", CoordinatorError: "coordinator-error",
	BrokerUnreachable: "broker-unreachable", ConnectionLost: "connection-lost", Redialed: "redialed",
	BadAnswer: "bad-answer", Retry: "retry", GaveUp: "gave-up"}

// String is the kind's name, e.g. "coordinator-error".
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && eventKindNames[k] != "" {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one thing a Cluster did or met while routing a request: every
// retry and its reason is one, so that a caller (a history, a report) can
// show "NOT_COORDINATOR from broker 1, coordinator found on broker 2,
// retried" and never has one hidden from it.
type Event struct {
	Kind EventKind
	// Group is the group whose request it was ("" for none).
	Group string
	// API is the request's api (FindCoordinator while finding the
	// coordinator).
	API codec.APIKey
	// Broker is the broker concerned (-1: a bootstrap address).
	Broker int32
	// Previous is, for CoordinatorFound, the coordinator known before
	// (-1: none).
	Previous int32
	// Code is, for CoordinatorError, the code answered.
	Code codec.ErrorCode
	// Forgot says the group's coordinator was forgotten, to be found
	// again before the next try.
	Forgot bool
	// Err says what failed, for BrokerUnreachable, ConnectionLost,
	// BadAnswer and GaveUp.
	Err string
	// Attempt counts the retries of the call, from 1 (Retry, GaveUp).
	Attempt int
	// Wait is the backoff before a Retry; for GaveUp, the time waited in
	// all.
	Wait time.Duration
}

// String says the event in one line.
func (e Event) String() string {
	var b strings.Builder
	if e.Group != "" {
		fmt.Fprintf(&b, "group %q: ", e.Group)
	}
	switch e.Kind {
	case CoordinatorFound:
		fmt.Fprintf(&b, "FindCoordinator names broker %d", e.Broker)
		if e.Previous >= 0 && e.Previous != e.Broker {
			fmt.Fprintf(&b, " (was broker %d)", e.Previous)
		}
	case CoordinatorError:
		fmt.Fprintf(&b, "broker %d answered %v with %v", e.Broker, e.API, e.Code)
	case BrokerUnreachable:
		fmt.Fprintf(&b, "broker %s unreachable for %v: %s", brokerName(e.Broker), e.API, e.Err)
	case ConnectionLost:
		fmt.Fprintf(&b, "connection to broker %s lost during %v, outcome unknown: %s", brokerName(e.Broker), e.API, e.Err)
	case Redialed:
		fmt.Fprintf(&b, "broker %s had closed the idle connection; dialled again before %v", brokerName(e.Broker), e.API)
	case BadAnswer:
		fmt.Fprintf(&b, "broker %s's %v answer is unusable: %s", brokerName(e.Broker), e.API, e.Err)
	case Retry:
		fmt.Fprintf(&b, "retry %d of %v after %v", e.Attempt, e.API, e.Wait)
	case GaveUp:
		fmt.Fprintf(&b, "gave up on %v after %d retries and %v: %s", e.API, e.Attempt, e.Wait, e.Err)
	default:
		b.WriteString(e.Kind.String())
	}
	if e.Forgot {
		b.WriteString("; coordinator forgotten")
	}
	return b.String()
}

func brokerName(id int32) string {
	if id < 0 {
		return "(bootstrap)"
	}
	return fmt.Sprint(id)
}

// ErrRetriesExhausted is wrapped by a *RetryError.
var ErrRetriesExhausted = errors.New("wire: retries exhausted")

// RetryError is a routed call that kept meeting a coordinator error or an
// unreachable broker until its budget (Backoff.MaxRetries, MaxWait, the
// context) ran out. The call also returns the last response, if any.
type RetryError struct {
	Group   string
	API     codec.APIKey
	Retries int
	Waited  time.Duration
	// Last is what the last attempt met.
	Last string
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("wire: group %q: %v: %d retries in %v, last: %s", e.Group, e.API, e.Retries, e.Waited.Round(time.Millisecond), e.Last)
}

// Unwrap makes a RetryError an ErrRetriesExhausted.
func (e *RetryError) Unwrap() error { return ErrRetriesExhausted }

// BrokerError is an error code a broker answered that ends a call: one
// that is not a coordinator error (GROUP_AUTHORIZATION_FAILED from
// FindCoordinator, say).
type BrokerError struct {
	Broker  int32
	API     codec.APIKey
	Code    codec.ErrorCode
	Message string
}

func (e *BrokerError) Error() string {
	s := fmt.Sprintf("wire: broker %s answered %v with %v", brokerName(e.Broker), e.API, e.Code)
	if e.Message != "" {
		s += fmt.Sprintf(" (%q)", e.Message)
	}
	return s
}

// ErrVersionNotOffered is wrapped by the refusal, before sending, of a
// request at a version the broker does not offer.
var ErrVersionNotOffered = errors.New("wire: the broker does not offer this api version")

// ErrClusterClosed is returned by a Cluster's calls after Close.
var ErrClusterClosed = errors.New("wire: the cluster client is closed")
