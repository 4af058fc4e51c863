// Package wire is ghostcheck's Kafka client connection, the one every tool
// builds on: the TCP target (package tcptarget), the conformance suite, the
// members admin and the server's own tests all speak to a broker through
// it, and so should anything new that talks to a broker.
//
// It owns what any client must get right before it can say anything about a
// broker:
//
//   - Dial with a timeout; read and write deadlines on every wait, renewed
//     only once half of the timeout has passed (a deadline costs a timer
//     update, and a client heartbeating at full speed should not pay it on
//     every request).
//   - Round trips, and pipelining: Buffer several requests, Flush them in
//     one write, Receive each in order; every response is matched to the
//     correlation id of the request it answers.
//   - A response size cap, checked against the size prefix before anything
//     is allocated, so a broker (or anything posing as one) cannot make the
//     client allocate what it announces.
//   - ApiVersions negotiation (Conn.Negotiate) with KIP-511's fallback: a
//     broker that does not know the version sent answers a v0 body with
//     UNSUPPORTED_VERSION and its own range, and the client retries at the
//     broker's highest. A reply that does not parse, or an error reply that
//     makes no sense, falls back to the next lower version instead of
//     failing; the Negotiation says what happened.
//   - KIP-1313 request headers (Headers): ClientId on a connection's first
//     request only and null afterwards; the client instance id in tag 0 of
//     every v2 header, never the zero UUID (refused when the Headers is
//     made); the header version per api from codec.
//   - Zero allocations on the steady path: Conn.ReceiveInto decodes into
//     the caller's response and Headers.Fill into the caller's header, so a
//     load generator measures the broker, not its own garbage.
//   - A StallWatch (stall.go): how late a broker over real time may fire a
//     timer with nothing in a history to show it, measured by a ticker
//     that pings the broker on a connection of its own; the TCP target and
//     the conformance cases that wait out a session count it as slack.
//   - Secured listeners (Dialer): TLS from the standard library (TLSFiles
//     makes the configuration from the command line's files) and SASL
//     PLAIN or SCRAM-SHA-256/512 (SaslHandshake v1, SaslAuthenticate
//     v0-v2; SCRAM from xdg-go/scram, not hand-written). A refused
//     authentication is an *AuthError wrapping ErrAuth; credentials live
//     in a Secret, which prints as "[redacted]" however it is printed,
//     and never reach an error.
//   - Clusters (Cluster): brokers from Metadata, each group's coordinator
//     from FindCoordinator, one negotiated connection per broker carrying
//     the cluster's one client instance id, and requests routed by group
//     with Kafka's clients' retries on NOT_COORDINATOR,
//     COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS, bounded
//     (Backoff) and each reported as an Event, never hidden.
//
// Keeping one client matters because a checker's findings are only as good
// as the client that makes them: a mistake in framing, negotiation or
// headers made in one copy and not another would show up as a broker bug in
// one tool and not in the next. wire imports only codec and the standard
// library, so anything above it may use it.
//
// Errors: a request whose outcome is unknown (written, then no response)
// returns an error wrapping ErrNoResponse; ErrConnClosed (which wraps it)
// when the broker closed the connection. After a transport error the
// connection's stream can no longer be trusted to be framed, so every later
// call returns the same error. A Cluster adds ErrAuth, *DialError (nothing
// sent), *RetryError (ErrRetriesExhausted), *BrokerError,
// ErrVersionNotOffered and ErrClusterClosed.
//
// The files:
//
//   - conn.go: Conn, Dial and Options: round trips, pipelining, deadlines,
//     the response size cap.
//   - frame.go: reading one frame, its size checked before the body is
//     allocated.
//   - headers.go: Headers, KIP-1313's request headers, and NewInstanceID.
//   - negotiate.go: ApiVersions negotiation with its fallbacks, Versions
//     and Negotiation.
//   - peek_unix.go, peek_other.go: whether the broker closed an idle
//     connection, seen without reading (a peek where the system has one).
//   - dialer.go: Dialer and Prelude, a connection made the way a cluster's
//     listeners want it (TLS, SASL, ApiVersions); tls.go: TLSFiles;
//     sasl.go: SASL PLAIN and SCRAM, ErrAuth; secret.go: Secret.
//   - cluster.go: Cluster and ClusterOptions, brokers from Metadata;
//     brokerconn.go: its one connection per broker, and DialError;
//     coordinator.go: a group's coordinator from FindCoordinator;
//     route.go: Do and RoundTrip, a request routed to the coordinator and
//     retried; backoff.go: Backoff, the waits between tries; event.go:
//     Event, what routing did or met.
package wire
