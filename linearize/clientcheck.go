package linearize

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

// recordClientRequest keeps r, just sent by a plan client, for the client
// rules; r.creq then names it (1-based).
func (d *driver) recordClientRequest(r *request) {
	if r.p.role != "client" {
		if d.canaryDue() {
			d.recordBreakerRequest(r)
		}
		return
	}
	hv, _ := codec.RequestHeaderVersion(r.h.RequestApiKey, r.h.RequestApiVersion)
	d.creqs = append(d.creqs, rules.ClientRequest{Conn: r.handle, Broker: "coordinator", Seq: d.connReqs[r.handle], At: d.now,
		HeaderVersion: hv, Header: r.h, API: r.h.RequestApiKey.String(), Request: r.req})
	d.connReqs[r.handle]++
	r.creq = len(d.creqs)
}

// clientFault notes on request n (1-based; 0 is none) what the network
// did to it.
func (d *driver) clientFault(n int, fault string) {
	if n > 0 {
		d.creqs[n-1].Fault = fault
	}
}

// clientResponse records that the client got resp for request n.
func (d *driver) clientResponse(n int, resp codec.Message) {
	if n < 0 { // the admin's, prober's or observer's (canary.go)
		d.breqs[-n-1].Response = resp
	}
	if n > 0 {
		d.creqs[n-1].Response = resp
	}
}

// checkClients judges the clients' requests by the client rules and
// reports each rule a client broke, at its first violation.
func (d *driver) checkClients() {
	for _, c := range rules.CheckClients(d.creqs) {
		for _, r := range c.Results {
			if r.Outcome == rules.OutcomeViolated {
				d.clientViolation(r.Rule, fmt.Sprintf("client %s: %s", c.Client, r.Detail))
			}
		}
	}
	if d.canaryDue() {
		d.checkBreakers()
	}
}

// canaryDue reports whether this history's canaries run (canaryEvery
// picks them by seed when the driver is made): the live client-rule one
// here, the synthetic records, the invariants' and the long way of
// DescribeAgrees. Judging the admin's, prober's and observer's traffic in
// every history was a sixth of the run's time.
func (d *driver) canaryDue() bool { return !d.skipCanary }

// clientViolation records that a client broke client rule rule.
func (d *driver) clientViolation(rule rules.Rule, detail string) {
	d.violate(&rules.Violation{Rule: string(rule), Detail: detail})
}
