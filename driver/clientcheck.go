package driver

// The client rules of docs/PROTOCOL.md Part C on the run's own clients:
// every request a plan's client process sends is recorded as a recording
// proxy would see it (rules.ClientRequest: its connection, its place on it,
// what the client got back), and at the end of the run rules.CheckClients
// judges them, as it judges a client library's traffic through `ghostcheck
// proxy`. The reference clients must keep every rule they adopt (an
// old-style client's repeated ClientId, a v0 client's broker-made id are
// NOT ADOPTED, not violations); one that does not is reported like any
// invariant. The admin and the prober break client rules on purpose: they
// are judged apart, against the breaks they committed (canary.go).

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// clientLog is the record of the requests the run's processes sent, as a
// recording proxy would see them, for the client rules: the plan's
// clients' (judged at the end of the run), and the admin's, the prober's
// and the observer's (the canary's, canary.go).
type clientLog struct {
	d *driver
	// reqs are the plan clients' requests, and seqs how many each
	// connection (by handle) carried.
	reqs []rules.ClientRequest
	seqs map[uint64]int
	// breakers are the admin's, prober's and observer's; none are kept
	// when this history's canaries do not run.
	breakers []rules.ClientRequest
}

func newClientLog(d *driver, size int) clientLog {
	return clientLog{d: d, reqs: make([]rules.ClientRequest, 0, size), seqs: map[uint64]int{}}
}

// record keeps r, just sent by a plan client, for the client rules; r.creq
// then names it (1-based). The admin's, prober's and observer's go to the
// canary (recordBreaker).
func (l *clientLog) record(r *request) {
	if r.p.role != roleClient {
		if l.d.canaries {
			l.recordBreaker(r)
		}
		return
	}
	hv, _ := codec.RequestHeaderVersion(r.h.RequestApiKey, r.h.RequestApiVersion)
	l.reqs = append(l.reqs, rules.ClientRequest{Conn: r.handle, Broker: "coordinator", Seq: l.seqs[r.handle], At: l.d.now,
		HeaderVersion: hv, Header: r.h, API: r.h.RequestApiKey.String(), Request: r.req})
	l.seqs[r.handle]++
	r.creq = len(l.reqs)
}

// fault notes on request n (1-based; 0 is none) what the network did to
// it.
func (l *clientLog) fault(n int, fault string) {
	if n > 0 {
		l.reqs[n-1].Fault = fault
	}
}

// response records that the client got resp for request n.
func (l *clientLog) response(n int, resp codec.Message) {
	if n < 0 { // the admin's, prober's or observer's (canary.go)
		l.breakers[-n-1].Response, l.breakers[-n-1].Answered = resp, l.d.now
	}
	if n > 0 {
		l.reqs[n-1].Response, l.reqs[n-1].Answered = resp, l.d.now
	}
}

// check judges the clients' requests by the client rules and reports each
// rule a client broke, at its first violation; then the canary, in the
// histories it runs in (canaryEvery picks them by seed when the driver is
// made: judging the admin's, prober's and observer's traffic in every
// history was a sixth of the run's time).
func (l *clientLog) check() {
	for _, c := range rules.CheckClients(l.reqs) {
		for _, r := range c.Results {
			if r.Outcome == rules.OutcomeViolated {
				l.d.violate(&rules.Violation{Rule: string(r.Rule), Detail: fmt.Sprintf("client %s: %s", c.Client, r.Detail)})
			}
		}
	}
	if l.d.canaries {
		l.checkBreakers()
	}
}
