package wire

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Call sends one request to broker b, on a connection the caller keeps
// (Cluster.Dial makes one), and returns the answer. What its error wraps
// says what was sent: ErrNoResponse, an unknown outcome (not retried); a
// *DialError, nothing (tried again after a backoff, the coordinator found
// again); anything else ends the routed call as it is.
type Call func(ctx context.Context, b Broker) (codec.Message, error)

// Do sends a request of api about group to the group's coordinator with
// call, as Kafka's clients do:
//
//   - the coordinator is the one known, or the one FindCoordinator names;
//   - an answer of NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE (read by
//     GroupErrorCode) forgets it; it is found again and the request sent
//     again, at once the first time, after a backoff when it happens
//     again in a row;
//   - COORDINATOR_LOAD_IN_PROGRESS keeps it and sends again after a
//     backoff;
//   - a broker that cannot be reached (nothing sent) forgets it and tries
//     again after a backoff;
//   - a request whose outcome is unknown (the connection failed with it
//     on it) forgets the coordinator and is returned, not sent again: it
//     may have been applied.
//
// Tries are bounded by ClusterOptions.Backoff and ctx; when they run out
// the last answer is returned with a *RetryError. Every step is an event,
// returned whatever the outcome.
func (c *Cluster) Do(ctx context.Context, group string, api codec.APIKey, call Call) (codec.Message, []Event, error) {
	return c.route(ctx, group, api, func(ctx context.Context, b *brokerConn, _ *[]Event) (codec.Message, error) {
		return call(ctx, b.Broker)
	})
}

// RoundTrip is Do on the cluster's own connection to the coordinator: req
// at version, with the cluster's headers. A coordinator that does not
// offer version refuses it before sending (ErrVersionNotOffered).
func (c *Cluster) RoundTrip(ctx context.Context, group string, version int16, req codec.Message) (codec.Message, []Event, error) {
	return c.route(ctx, group, req.Key(), func(ctx context.Context, b *brokerConn, evs *[]Event) (codec.Message, error) {
		resp, redialed, err := b.roundTrip(ctx, c, fixedVersion(version, req))
		if redialed {
			*evs = append(*evs, Event{Kind: Redialed, Group: group, API: req.Key(), Broker: b.ID})
		}
		return resp, err
	})
}

type send func(ctx context.Context, b *brokerConn, evs *[]Event) (codec.Message, error)

func (c *Cluster) route(ctx context.Context, group string, api codec.APIKey, send send) (codec.Message, []Event, error) {
	bg := newBudget(c.o.Backoff)
	var evs []Event
	prev := int32(-1)
	for {
		b, err := c.coordinator(ctx, group, prev, bg, &evs)
		if err != nil {
			return nil, evs, err
		}
		prev = b.ID
		resp, err := send(ctx, b, &evs)
		if err != nil {
			switch {
			case errors.Is(err, ErrNoResponse):
				c.forget(group, b.ID)
				evs = append(evs, Event{Kind: ConnectionLost, Group: group, API: api, Broker: b.ID, Err: err.Error(), Forgot: true})
				return nil, evs, err
			case transient(err):
				c.forget(group, b.ID)
				evs = append(evs, Event{Kind: BrokerUnreachable, Group: group, API: api, Broker: b.ID, Err: err.Error(), Forgot: true})
				if err := c.backoff(ctx, group, api, bg, false, err.Error(), &evs); err != nil {
					return nil, evs, err
				}
				continue
			}
			return nil, evs, err
		}
		code := GroupErrorCode(resp, group)
		moved := code == codec.NotCoordinator || code == codec.CoordinatorNotAvailable
		if !moved && code != codec.CoordinatorLoadInProgress {
			return resp, evs, nil
		}
		if moved {
			c.forget(group, b.ID)
		}
		evs = append(evs, Event{Kind: CoordinatorError, Group: group, API: api, Broker: b.ID, Code: code, Forgot: moved})
		if err := c.backoff(ctx, group, api, bg, moved, fmt.Sprintf("%v from broker %d", code, b.ID), &evs); err != nil {
			return resp, evs, err
		}
	}
}

// backoff takes the next retry of bg (moved: the coordinator just moved),
// waiting for it, or returns the *RetryError that ends the call.
func (c *Cluster) backoff(ctx context.Context, group string, api codec.APIKey, bg *budget, moved bool, last string, evs *[]Event) error {
	d, ok := bg.next(moved, c.jitter())
	if !ok {
		waited := bg.elapsed()
		*evs = append(*evs, Event{Kind: GaveUp, Group: group, API: api, Broker: -1, Attempt: bg.retries, Wait: waited, Err: last})
		return &RetryError{Group: group, API: api, Retries: bg.retries, Waited: waited, Last: last}
	}
	*evs = append(*evs, Event{Kind: Retry, Group: group, API: api, Broker: -1, Attempt: bg.retries, Wait: d})
	if err := sleep(ctx, d); err != nil {
		return fmt.Errorf("wire: group %q: %v: waiting to retry: %w", group, api, err)
	}
	return nil
}
