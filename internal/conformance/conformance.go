// Package conformance holds ghostcheck's conformance suite: one named case
// per rule of docs/PROTOCOL.md A1-A3, A5.3, A5.5, A5.7, A6, A7, §B4.2, §B4.4,
// §B5, §B6 and §B8 (plus the framing and ApiVersions rules of §B1 and §B7 a broker
// needs to be talked to), each with the source of its rule (a KIP, the first Kafka
// release that ships it, or none yet: ships.go), run against a broker over
// TCP and reported pass or fail with what the broker answered. `ghostcheck
// check` prints it as a table; tests run it against ghostcheck's own server
// and against kfake, and peers/librdkafka's against librdkafka's mock
// cluster.
//
// Brokers we did not write differ: a case that needs an api or version the
// broker lacks is SKIP; a broker that stops answering during a case makes
// it CRASH (crash.go), and a Broker with a Launcher replaces it (broker.go);
// findings already recorded are read from a known-findings file (known.go)
// and set aside. The fault-injected histories are in history.go.
//
// The cases are in cases.go (Cases, the list; A1-A3, §B4, §B5, §B1 and
// §B7), cases_ids.go (a later request's ClientId, telemetry's reserved
// ids), cases_telemetry.go (a fetch and pushes, §B6), cases_leave.go (LeaveGroup and group ids as Kafka 4.0 has them),
// cases_pending.go (pending revocations), cases_static.go (static
// membership) and cases_cluster.go (a cluster of brokers: one process on
// every broker, a broker that is not the coordinator, FindCoordinator's
// batch). route.go is how a case reaches its groups' coordinator in a
// cluster (wire.Cluster): one home broker per case, coordinator errors
// retried, a move during the case a SKIP.
//
// A case holds the broker only to what a client can observe: error codes,
// member ids and epochs, membership as ConsumerGroupDescribe shows it.
// Error messages and assignments are not compared (a foreign broker has its
// own). Each case works in groups of its own (named from Peer.Prefix), so
// cases do not disturb each other and may run against a broker in use.
//
// The files:
//
//   - conformance.go: Case, Result, Run: a case run against a broker, its
//     verdict, the requests and descriptions cases share.
//   - cases.go: Cases, the suite in docs/PROTOCOL.md's order; the cases of
//     a section live with it or in the files below.
//   - cases_leave.go: LeaveGroup and group ids as Kafka 4.0 changed them
//     (A3.1-A3.3, §B5, §B7.2).
//   - cases_static.go: static membership: KIP-345's promise (A5.5), the
//     assignment key a takeover keeps (A5.2), the size cap it skips
//     (KAFKA-20601), the full request (A5.7), the session a static leave
//     leaves running (§B4.4).
//   - cases_ids.go: the ids a request carries: a later request's own
//     ClientId (A2), the reserved telemetry ids (A2, §B6).
//   - cases_telemetry.go: what a client instance's fetch and pushes
//     leave for its next push (§B6): the subscription id, the compression
//     types, the push interval, the terminating push.
//   - cases_pending.go: pending revocations under a null TopicPartitions
//     and a static leave (A5.3, §B4.4).
//   - cases_reconcile.go: a member that does not revoke (A5.3, A5.6): its
//     rebalance timer, the assignment it keeps while the target moves
//     again, the free partitions another member gets meanwhile.
//   - cases_state.go: what a request leaves for a later one or Describe,
//     and a check's bound: LeaveGroup entries after a failed one (A3), the
//     group epoch (A5.1), an epoch one ahead (A5.4), a revocation's answer
//     (A5.7).
//   - cases_classic.go: the classic group protocol (A6, §B8, §B5's
//     classic part); classic.go: what its cases share (members that join,
//     sync and heartbeat as clients do, held requests).
//   - cases_classic_join.go: the classic join phase, the states a
//     JoinGroup meets and the generations it makes (B8.6, B8.7), a static
//     restart while the group rebalances (A6.2), and the timers only a
//     join phase arms (B8.10).
//   - cases_classic_leave.go: A6.3's classic LeaveGroup entries that name
//     nobody or a static member by its id, and what a removal does to the
//     requests its group holds.
//   - cases_classic_sync.go: the sync phase (§B8.8), a Heartbeat and
//     DescribeGroups during CompletingRebalance (§B8.9, §B8.13), and what a
//     session's end does while a group rebalances (§B8.10).
//   - cases_mixed.go: mixed groups (A7): classic members of consumer
//     groups, the upgrade and the downgrade; a broker that keeps the
//     protocols apart is N/A (notMixed).
//   - cases_mixed_join.go: a classic JoinGroup to a consumer group that
//     is refused (size cap, protocols, static ids, metadata), and the
//     group epoch a replacement keeps and a new subscription moves (A7.1).
//   - cases_mixed_sync.go: a classic member's SyncGroup naming another
//     protocol, or behind the group epoch (A7.2).
//   - cases_mixed_timers.go: a classic member's join and sync timers
//     (A7.1) and the session its Heartbeats keep (A7.2).
//   - cases_mixed_switch.go: a member that changes protocol (A7.3), and
//     the upgrade a classic group's protocol type forbids (A7.4).
//   - expiry.go: the timing of a case that waits out a session.
//   - ships.go: Ships, the releases that carry a case's rule.
//   - hold.go: Holding, the release a broker is held to (named, or
//     inferred from what it lists and serves: internal/releases), the
//     apis it lists without serving, and ERROR for a request ghostcheck
//     could not build.
//   - crash.go: a broker that stops answering during a case.
//   - broker.go: Broker and Launcher, a fresh broker after a crash
//     (--broker-cmd).
//   - shards.go: RunShards, a case list run on several brokers side by
//     side (the tests' long lists, which mostly wait).
//   - known.go: Known, the known-findings file (--known).
//   - history.go: the fault-injected histories over TCP.
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Status is a case's outcome.
type Status string

const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	// Skip: the case does not apply to this broker (it does not offer the
	// api version the rule is about, or the setting it needs is unknown).
	Skip Status = "SKIP"
	// Crash: the broker stopped answering during the case (it died, or
	// hangs). Result.Frame is the last request the case sent.
	Crash Status = "CRASH"
	// NotApplicable: the case failed, but its rule is not in the Kafka
	// release the check was asked to hold the broker to
	// (Options.KafkaVersion): a broker of that release may answer
	// otherwise. Result.ShipsIn says where the rule ships.
	NotApplicable Status = "N/A"
	// Error: ghostcheck could not build its own request. Nothing is said
	// of the broker: it is a bug of ghostcheck, with an exit status of its
	// own.
	Error Status = "ERROR"
)

// Peer is the broker (or cluster) under test and what the suite must know
// of its configuration.
type Peer struct {
	// Bootstrap are the addresses to learn the cluster from (Metadata);
	// a broker that offers no Metadata stands alone (wire.Cluster).
	Bootstrap []string
	// Dialer makes every connection: TLS and SASL when the listener
	// wants them (its Timeout is Timeout's).
	Dialer wire.Dialer
	// SessionTimeout is the broker's consumer session timeout; 0 skips the
	// cases that wait for one.
	SessionTimeout time.Duration
	// HeartbeatInterval is the broker's heartbeat interval; 0: not compared.
	HeartbeatInterval time.Duration
	// MaxGroupSize is the broker's group.consumer.max.size; 0 skips the
	// size-cap case.
	MaxGroupSize int
	// Topic is a topic that exists on the broker (for subscriptions).
	Topic string
	// Timeout bounds each request (0: 5 s).
	Timeout time.Duration
	// Prefix starts every group and member id the suite makes ("" picks a
	// random one).
	Prefix string
	// ClassicSessionTimeout is the SessionTimeoutMs the classic cases'
	// JoinGroups send: it must lie within the broker's
	// group.min.session.timeout.ms and group.max.session.timeout.ms (0: 6
	// s, Kafka's minimum by default). Their RebalanceTimeoutMs is half of
	// it; the slow classic cases wait it out.
	ClassicSessionTimeout time.Duration
	// ClassicMaxGroupSize is the broker's group.max.size; 0 skips the
	// classic size-cap case.
	ClassicMaxGroupSize int
	// ClassicMinSessionTimeout and ClassicMaxSessionTimeout are the
	// broker's group.min.session.timeout.ms and
	// group.max.session.timeout.ms, for the cases that join at a bound
	// and one millisecond past it; 0 skips the case of that bound (a
	// broker configured otherwise than Kafka's defaults would fail it).
	ClassicMinSessionTimeout time.Duration
	ClassicMaxSessionTimeout time.Duration
}

// Case is one rule, checked.
type Case struct {
	// Name is "SECTION/what", e.g. "A1/v1-join-empty-member-id".
	Name string
	// Rule says in words what the broker must do.
	Rule string
	// Source is where the rule comes from, in the words of the case's row
	// in docs/PROTOCOL.md: a KIP, "Kafka X.Y" (the first release that
	// ships it), "trunk only", "KIP accepted, not shipped", "open PR".
	// ShipsOf reads which releases carry it.
	Source string
	// Risky cases may crash a broker that mishandles them; run them last,
	// or isolated from anything sharing the broker's process.
	Risky bool
	// Slow cases wait for a session timeout.
	Slow bool
	run  func(p *probe) verdict
}

// Result is a case's outcome against one broker.
type Result struct {
	Name     string `json:"name"`
	Rule     string `json:"rule"`
	Source   string `json:"source"`
	Status   Status `json:"status"`
	Observed string `json:"observed"`
	Expected string `json:"expected,omitempty"`
	Seconds  float64
	// Known is the id of the known finding (Options.Known) this FAIL or
	// CRASH reproduces; "" when it is new.
	Known string `json:"known,omitempty"`
	// Note says more: a known finding that did not reproduce, or failed
	// otherwise than recorded.
	Note string `json:"note,omitempty"`
	// ShipsIn is, for an N/A, where the case's rule ships ("Kafka 4.0",
	// "no known release").
	ShipsIn string `json:"shipsIn,omitempty"`
	// Broker is the broker the case spoke to (the coordinator of its
	// groups), -1 when it made no connection.
	Broker int32 `json:"broker"`
	// Route are what finding the case's coordinators met beyond the
	// first FindCoordinator of each group: retries of coordinator errors,
	// moves (wire.Event, in words). None is judged by itself.
	Route []string `json:"route,omitempty"`
	// Frame is, for a CRASH, the last request the case sent before the
	// broker stopped answering, as hex with its size prefix (what
	// `ghostcheck decode` reads); FrameFile is where it was written.
	Frame     string `json:"frame,omitempty"`
	FrameFile string `json:"frameFile,omitempty"`
}

// Failed reports whether the result is a finding that is not known: a
// FAIL or CRASH without a known finding that it reproduces.
func (r Result) Failed() bool {
	return (r.Status == Fail || r.Status == Crash) && r.Known == ""
}

type verdict struct {
	status             Status
	observed, expected string
}

func pass(observed string) verdict { return verdict{Pass, observed, ""} }

func fail(observed, expected string) verdict {
	return verdict{Fail, observed, expected}
}

func skip(why string) verdict { return verdict{Skip, why, ""} }

// want passes when ok, else fails with what was expected.
func want(ok bool, observed, expected string) verdict {
	if ok {
		return pass(observed)
	}
	return fail(observed, expected)
}

// abort ends a case early with a failure (a transport error, an
// unexpected response type).
type abort struct{ v verdict }

// Options shape a Run.
type Options struct {
	// Progress, if non-nil, sees each result as it is made.
	Progress func(Result)
	// Known are the findings already recorded against the broker: a FAIL
	// or CRASH of a case listed is marked with its id, and the
	// workarounds listed are applied.
	Known *Known
	// Broker is where the cases go (nil: Peer.Addr, never replaced). With
	// a Launcher, the cases after a crash each get a fresh broker.
	Broker *Broker
	// Out is the directory where the request that crashed a broker is
	// written ("": not written).
	Out string
	// KafkaVersion, if set ("4.1"), is the Apache Kafka release the
	// broker is held to: a case whose rule that release does not ship
	// (its Source) is N/A instead of FAIL. "" and ReleaseNext hold it to
	// every rule (`ghostcheck check` defaults to NewestRelease).
	KafkaVersion string
	// InferRelease holds the broker to the newest release consistent with
	// what it lists and serves (docs/PROTOCOL.md B13), instead of
	// KafkaVersion.
	InferRelease bool
}

// Report is what a Run found.
type Report struct {
	Results []Result `json:"cases"`
	// Negotiation says how ApiVersions was settled when the broker's
	// first reply did not settle it (a reply that did not parse, an
	// UNSUPPORTED_VERSION): wire.Negotiation's notes, in order.
	Negotiation []string `json:"negotiation,omitempty"`
	// Versions are the broker's api versions.
	Versions wire.Versions `json:"-"`
	// Held is the release the broker was held to, and why.
	Held *Holding `json:"heldTo,omitempty"`
	// Stopped, when set, says why the run ended before its last case: the
	// broker stopped answering and there was no launcher to start another.
	Stopped string `json:"stopped,omitempty"`
	// NotRun are the cases left out when it stopped.
	NotRun []string `json:"notRun,omitempty"`
	// positions are the Results' cases' positions in the run (a shard's
	// run: in the whole run's list).
	positions []int
}

// Run runs cases against the peer, in order, each on connections of its
// own to the coordinator of its groups (see route.go), and checks after
// each that the broker it spoke to still answers: a case after which it
// does not is a CRASH, and the run stops there unless opts.Broker can
// start a fresh broker (then every later case gets one). A cluster that
// refuses the peer's credentials is an error wrapping wire.ErrAuth:
// nothing was checked. With no cases it only surveys the broker: what it
// lists and serves, and the release it is held to (Report.Versions, Held).
func Run(peer Peer, cases []Case, opts Options) (*Report, error) {
	return run(peer, &caseList{cases: cases}, len(cases) == 0, opts)
}

// A queue hands a run its cases: the next one and its position in the
// whole run (which picks its broker in a cluster when no group does), and
// the cases a run that stops leaves out. Run's is its list; the shards of
// RunShards share one.
type queue interface {
	next() (position int, c Case, ok bool)
	// rest are the cases not yet handed out.
	rest() []Case
}

// caseList is a queue of a list's cases, in order.
type caseList struct {
	cases []Case
	i     int
}

func (l *caseList) next() (int, Case, bool) {
	if l.i >= len(l.cases) {
		return 0, Case{}, false
	}
	l.i++
	return l.i - 1, l.cases[l.i-1], true
}

func (l *caseList) rest() []Case { return l.cases[l.i:] }

// run is Run with its cases from q (survey: there are none, and the run
// only surveys the broker).
func run(peer Peer, q queue, survey bool, opts Options) (*Report, error) {
	peer = peer.withDefaults()
	b := opts.Broker
	if b == nil {
		var err error
		if b, err = NewBroker(peer.Bootstrap, nil, 0); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	var cl *wire.Cluster
	defer func() {
		if cl != nil {
			cl.Close()
		}
	}()
	var n *wire.Negotiation
	rep := &Report{}
	if survey {
		// No case: what the broker lists and serves, and the release it is
		// held to, still decide the histories that follow (their protocol).
		boot, err := b.next()
		if err != nil {
			rep.Stopped = err.Error()
			return rep, nil
		}
		if cl, err = connect(ctx, peer, boot); err != nil {
			return nil, err
		}
		if err := b.survey(ctx, peer, cl, opts); err != nil {
			return nil, err
		}
		rep.Negotiation, rep.Versions, rep.Held = b.negotiation.Notes, b.negotiation.Versions, b.held
		return rep, nil
	}
	for first := true; ; first = false {
		i, c, ok := q.next()
		if !ok {
			break
		}
		boot, err := b.next()
		if err != nil {
			rep.stop(err.Error(), append([]Case{c}, q.rest()...))
			break
		}
		if cl == nil || b.fresh {
			// A fresh broker per case after a crash: a cluster of its own.
			if cl != nil {
				cl.Close()
			}
			if cl, err = connect(ctx, peer, boot); err != nil {
				if first || errors.Is(err, wire.ErrAuth) {
					return nil, err
				}
				rep.stop(err.Error(), append([]Case{c}, q.rest()...))
				break
			}
		}
		if err := b.survey(ctx, peer, cl, opts); err != nil {
			return nil, err
		}
		n = b.negotiation
		rep.Negotiation, rep.Versions, rep.Held = n.Notes, n.Versions, b.held
		r, alive := runCase(ctx, peer, cl, i, c, n.Versions, b, opts)
		rep.Results = append(rep.Results, r)
		rep.positions = append(rep.positions, i)
		if opts.Progress != nil {
			opts.Progress(r)
		}
		if !alive && !b.crashed() {
			rep.stop(fmt.Sprintf("the broker stopped answering during %s (give a command that starts one, --broker-cmd, to go on with a fresh broker per case)", c.Name), q.rest())
			break
		}
	}
	return rep, nil
}

// survey settles what the broker lists and serves, and the release it is
// held to: once per broker command (after a crash the broker may be the
// dead one, and a fresh one offers the same).
func (b *Broker) survey(ctx context.Context, peer Peer, cl *wire.Cluster, opts Options) error {
	if b.negotiation == nil {
		n, unserved, err := negotiateAndProbe(ctx, peer, cl)
		if err != nil {
			return err
		}
		b.negotiation, b.unserved = n, unserved
	}
	if b.held == nil {
		b.held, _ = hold(opts.KafkaVersion, opts.InferRelease, b.negotiation.Versions, b.unserved)
	}
	return nil
}

func (rep *Report) stop(why string, rest []Case) {
	rep.Stopped = why
	for _, c := range rest {
		rep.NotRun = append(rep.NotRun, c.Name)
	}
}

func (p Peer) withDefaults() Peer {
	if p.Timeout <= 0 {
		p.Timeout = 5 * time.Second
	}
	if p.Topic == "" {
		p.Topic = "alpha"
	}
	if p.ClassicSessionTimeout <= 0 {
		p.ClassicSessionTimeout = 6 * time.Second
	}
	if p.Prefix == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		p.Prefix = "gc-" + hex.EncodeToString(b[:]) + "-"
	}
	p.Dialer.Timeout = p.Timeout
	return p
}

// connect makes the cluster the cases route through, from bootstrap.
func connect(ctx context.Context, peer Peer, bootstrap []string) (*wire.Cluster, error) {
	return wire.Connect(ctx, bootstrap, wire.ClusterOptions{Dialer: peer.Dialer, ClientID: "ghostcheck-check", InstanceID: probeInstance})
}

// runCase runs one case, the position-th, against the cluster, then
// checks that the broker it spoke to still answers (alive false: it does
// not, and the result is a CRASH), and marks a known finding.
func runCase(ctx context.Context, peer Peer, cl *wire.Cluster, position int, c Case, versions wire.Versions, b *Broker, opts Options) (Result, bool) {
	p := &probe{ctx: ctx, peer: peer, cl: cl, home: -1, position: position, versions: usable(versions, b.unserved), advertised: versions,
		unserved: b.unserved, held: b.held, caseName: c.Name, known: opts.Known}
	start := time.Now()
	v := p.run(c)
	p.close()
	r := Result{Name: c.Name, Rule: c.Rule, Source: c.Source, Status: v.status, Observed: v.observed, Expected: v.expected, Broker: p.home, Route: p.route}
	p.noteUnserved(&r)
	alive := true
	var addr string
	if p.home >= 0 {
		if hb, ok := cl.Broker(p.home); ok {
			addr = hb.Addr
		}
	} else if bs := cl.Brokers(); len(bs) > 0 {
		addr = bs[0].Addr
	}
	if err := b.alive(ctx, peer.Dialer, addr); err != nil {
		alive = false
		p.crash(&r, err, b, opts.Out)
	}
	r.Seconds = time.Since(start).Seconds()
	// Not shipped first: a broker that does what every release does on a
	// rule no release has is no finding, known or not (a known entry for
	// it says it did not reproduce).
	markNotShipped(&r, b.held.Release)
	markKnown(&r, opts.Known)
	return r, alive
}

// markNotShipped makes a FAIL N/A when the release the broker is held to
// does not ship the case's rule. A CRASH stays: a broker must not die on
// any request.
func markNotShipped(r *Result, release string) {
	if release == "" || release == ReleaseNext || r.Status != Fail {
		return
	}
	s, err := ShipsOf(r.Source)
	if err != nil || s.In(release) {
		return
	}
	r.Status, r.ShipsIn = NotApplicable, s.String()
}

// markKnown marks a FAIL or CRASH that reproduces a known finding, and
// notes a known finding that did not reproduce. A case may be listed more
// than once, one line per way its finding shows (timing picks which): any
// line whose observation the result contains reproduces it.
func markKnown(r *Result, k *Known) {
	e, ok := k.Case(r.Name)
	if !ok {
		return
	}
	if r.Status != Fail && r.Status != Crash {
		r.Note = fmt.Sprintf("known finding %s did not reproduce", e.ID)
		return
	}
	for c := range k.of(KnownCase) {
		if c.Name == r.Name && (c.Observed == "" || strings.Contains(r.Observed, c.Observed)) {
			r.Known = c.ID
			return
		}
	}
	r.Note = fmt.Sprintf("known finding %s was recorded as %q; this %s differs", e.ID, e.Observed, r.Status)
}

func (p *probe) run(c Case) (v verdict) {
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			v = a.v
		}
	}()
	return c.run(p)
}

// Select returns the cases whose names start with one of the prefixes
// (all cases for none), leaving out risky (unless risky) and slow ones
// (unless slow).
func Select(prefixes []string, risky, slow bool) []Case {
	var out []Case
	for _, c := range Cases() {
		if c.Risky && !risky || c.Slow && !slow {
			continue
		}
		if len(prefixes) == 0 {
			out = append(out, c)
			continue
		}
		for _, pre := range prefixes {
			if strings.HasPrefix(c.Name, pre) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Counts tallies results by status.
func Counts(rs []Result) map[Status]int {
	m := map[Status]int{}
	for _, r := range rs {
		m[r.Status]++
	}
	return m
}

// Table writes the results as an aligned table: case, status, the rule's
// source, what the broker answered, and for failures what the rule
// expects. A FAIL or CRASH that reproduces a known finding is marked with
// its id, e.g. "FAIL (known K1)", and an N/A with where its rule ships.
func Table(w io.Writer, rs []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRESULT\tSOURCE\tOBSERVED\tEXPECTED")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.StatusText(), r.Source, oneLine(r.Observed), oneLine(r.Expected))
	}
	tw.Flush()
}

// StatusText is the status as a table shows it: "FAIL (known K1)", "N/A
// (ships in Kafka 4.0)", "PASS".
func (r Result) StatusText() string {
	st := string(r.Status)
	if r.Known != "" {
		st += " (known " + r.Known + ")"
	}
	if r.ShipsIn != "" {
		st += " (ships in " + r.ShipsIn + ")"
	}
	return st
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 110 {
		s = s[:107] + "..."
	}
	return s
}

// probe is one case's access to the broker: connections, fresh ids and
// request helpers that abort the case on a transport error.
type probe struct {
	ctx  context.Context
	peer Peer
	cl   *wire.Cluster
	// home is the broker the case speaks to (-1 until fixed: route.go);
	// position, the case's in the run, picks it when no group does.
	home     int32
	position int
	// route are the routing events noted (probe.note); answered, the
	// broker that answered each group's requests.
	route    []string
	answered map[string]int32
	// versions are what the case may use: advertised are the broker's
	// ApiVersions ranges, less the apis it lists but answered
	// UNSUPPORTED_VERSION to (unserved).
	versions   wire.Versions
	advertised wire.Versions
	unserved   map[codec.APIKey]bool
	// held is the release the broker is held to.
	held     *Holding
	caseName string
	known    *Known
	conns    []*pconn
	seq      int
	// sent are the request frames the case wrote, in order (size prefix
	// included): the last is what a crash report names. A classic case
	// writes from several goroutines (its members' clients): mu guards
	// sent, route, answered and conns.
	mu   sync.Mutex
	sent [][]byte
}

// max is the broker's highest version of key, or -1.
func (p *probe) max(key codec.APIKey) int16 { return p.versions.Max(key) }

// offers reports whether the broker offers key at version.
func (p *probe) offers(key codec.APIKey, v int16) bool { return p.versions.Offers(key, v) }

// needs ends the case as SKIP when the broker does not offer key at all.
func (p *probe) needs(key codec.APIKey) {
	if p.max(key) < 0 {
		panic(abort{skip(p.lacks(key))})
	}
}

// offered says which versions of key the broker offers, in words.
func (p *probe) offered(key codec.APIKey) string {
	r, ok := p.versions[key]
	if !ok {
		return "none"
	}
	return fmt.Sprintf("v%d-v%d", r[0], r[1])
}

// withoutKIP1313 says why a case of telemetry's v1 (KIP-1313's) skips:
// the versions of key the broker offers, or that it offers none.
func (p *probe) withoutKIP1313(key codec.APIKey) string {
	if _, ok := p.versions[key]; !ok {
		return fmt.Sprintf("the broker does not offer %v (v1 is KIP-1313's)", key)
	}
	return fmt.Sprintf("the broker offers %v %s (v1 is KIP-1313's)", key, p.offered(key))
}

// hbv is the ConsumerGroupHeartbeat version the suite uses: 1 (KIP-1082)
// when offered.
func (p *probe) hbv() int16 { return min(p.max(codec.ConsumerGroupHeartbeat), 1) }

// do sends one request; a transport error fails the case. A request at a
// version the broker does not offer ends the case as SKIP: the rule needs
// what the broker lacks.
func (c *pconn) do(key codec.APIKey, v int16, req codec.Message) codec.Message {
	if !c.p.offers(key, v) {
		if _, ok := c.p.versions[key]; !ok {
			panic(abort{skip(c.p.lacks(key))})
		}
		panic(abort{skip(fmt.Sprintf("needs %v v%d; the broker offers %s", key, v, c.p.offered(key)))})
	}
	if err := c.open(req); err != nil {
		panic(abort{fail("dial: "+err.Error(), "a connection")})
	}
	resp, err := c.try(c.header(key, v), req)
	if ownError(err) {
		panic(abort{internalError(fmt.Sprintf("%v v%d", key, v), err)})
	}
	if err != nil {
		what := fmt.Sprintf("%v v%d: %v", key, v, err)
		if errors.Is(err, wire.ErrConnClosed) {
			what = fmt.Sprintf("%v v%d: the broker closed the connection without a response", key, v)
		}
		panic(abort{fail(what, "a response")})
	}
	return resp
}

// hb sends a heartbeat. Under WorkaroundJoinRegex, one naming topics with
// a null SubscribedTopicRegex is sent with "" instead (as the histories'
// requests are).
func (c *pconn) hb(v int16, r *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
	if c.p.known.Workaround(WorkaroundJoinRegex) {
		r = joinRegexEmpty(nil, r).(*codec.ConsumerGroupHeartbeatRequest)
	}
	return c.do(codec.ConsumerGroupHeartbeat, v, r).(*codec.ConsumerGroupHeartbeatResponse)
}

// joinReq is a full join: epoch 0, subscription, empty owned partitions.
func (p *probe) joinReq(group, member string) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: member, MemberEpoch: 0, RebalanceTimeoutMs: 30000,
		SubscribedTopicNames: []string{p.peer.Topic}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
}

func static(r *codec.ConsumerGroupHeartbeatRequest, instance string) *codec.ConsumerGroupHeartbeatRequest {
	r.InstanceId = codec.Str(instance)
	return r
}

// mustJoin joins and aborts the case unless the join succeeds.
// memberIDOf is the id a member that joined as mid goes by: the one the
// answer gives (a v0 broker makes it), else its own.
func memberIDOf(j *codec.ConsumerGroupHeartbeatResponse, mid string) string {
	if j.MemberId.Valid {
		return j.MemberId.Value
	}
	return mid
}

func (c *pconn) mustJoin(r *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
	resp := c.hb(c.p.hbv(), r)
	if resp.ErrorCode != codec.None {
		panic(abort{fail("setup join of "+r.MemberId+": "+hbString(resp), "the setup join to succeed")})
	}
	return resp
}

// keepalive is a heartbeat at epoch with nothing changed.
func keepalive(group, member string, epoch int32) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1}
}

func leave(group, member string, epoch int32) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1}
}

func (c *pconn) describe(group string) codec.DescribedGroup {
	v := min(c.p.max(codec.ConsumerGroupDescribe), 1)
	r := c.do(codec.ConsumerGroupDescribe, v, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}}).(*codec.ConsumerGroupDescribeResponse)
	if len(r.Groups) != 1 {
		panic(abort{fail(fmt.Sprintf("describe of one group answered %d groups", len(r.Groups)), "one group")})
	}
	return r.Groups[0]
}

// describeFor describes group when the broker offers
// ConsumerGroupDescribe. Without it the case ends here: FAIL when what it
// saw so far already breaks the rule (ok false), else SKIP, since the rest
// of the rule (who is in the group) shows only through Describe.
func (c *pconn) describeFor(group string, ok bool, observed, expected string) codec.DescribedGroup {
	if c.p.max(codec.ConsumerGroupDescribe) < 0 {
		if !ok {
			panic(abort{fail(observed, expected)})
		}
		panic(abort{skip(observed + "; the rest of the rule needs ConsumerGroupDescribe, which the broker does not offer")})
	}
	return c.describe(group)
}

// harmless is a request any broker answers without changing anything a
// case looks at, at a version it lists and serves: ConsumerGroupDescribe
// of a group that does not exist; from a broker without it, a heartbeat
// (epoch 1) of a member of such a group; from a broker that serves neither,
// DescribeGroups of such a group, or ApiVersions. flexible asks for a
// flexible version (request header v2, which carries tags); ok is false
// when the broker serves none. say puts its response in words.
func (p *probe) harmless(flexible bool) (key codec.APIKey, v int16, req codec.Message, say func(codec.Message) string, ok bool) {
	if v := min(p.max(codec.ConsumerGroupDescribe), 1); v >= 0 {
		return codec.ConsumerGroupDescribe, v, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{p.id("g")}}, func(m codec.Message) string {
			gs := m.(*codec.ConsumerGroupDescribeResponse).Groups
			if len(gs) != 1 {
				return fmt.Sprintf("describe: %d groups", len(gs))
			}
			return describeString(gs[0])
		}, true
	}
	if v := p.hbv(); v >= 0 {
		return codec.ConsumerGroupHeartbeat, v, keepalive(p.id("g"), p.id("m"), 1), func(m codec.Message) string {
			return "heartbeat: " + hbString(m.(*codec.ConsumerGroupHeartbeatResponse))
		}, true
	}
	if v := p.max(codec.DescribeGroups); v >= 0 && (!flexible || codec.Lookup(codec.DescribeGroups).Flexible(v)) {
		return codec.DescribeGroups, v, &codec.DescribeGroupsRequest{Groups: []string{p.id("g")}}, func(m codec.Message) string {
			gs := m.(*codec.DescribeGroupsResponse).Groups
			if len(gs) != 1 {
				return fmt.Sprintf("DescribeGroups: %d groups", len(gs))
			}
			return fmt.Sprintf("DescribeGroups v%d: %s %q", v, gs[0].ErrorCode, gs[0].GroupState)
		}, true
	}
	if v := min(p.max(codec.ApiVersions), codec.Lookup(codec.ApiVersions).MaxVersion); v >= 0 && (!flexible || codec.Lookup(codec.ApiVersions).Flexible(v)) {
		return codec.ApiVersions, v, &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck", ClientSoftwareVersion: "1.0"}, func(m codec.Message) string {
			return fmt.Sprintf("ApiVersions v%d: %s", v, m.(*codec.ApiVersionsResponse).ErrorCode)
		}, true
	}
	return 0, 0, nil, nil, false
}

// mustHarmless is harmless, or the case ends as SKIP.
func (p *probe) mustHarmless(flexible bool) (codec.APIKey, int16, codec.Message, func(codec.Message) string) {
	key, v, req, say, ok := p.harmless(flexible)
	if !ok {
		what := "an api"
		if flexible {
			what = "a flexible version (request header v2) of an api"
		}
		panic(abort{skip("needs " + what + " the broker lists and serves (ConsumerGroupDescribe, ConsumerGroupHeartbeat, DescribeGroups or ApiVersions); it serves none")})
	}
	return key, v, req, say
}

// members lists a group's members as id@epoch ("" for a missing group).
func members(g codec.DescribedGroup) map[string]int32 {
	out := map[string]int32{}
	if g.ErrorCode == codec.None {
		for _, m := range g.Members {
			out[m.MemberId] = m.MemberEpoch
		}
	}
	return out
}

func describeString(g codec.DescribedGroup) string {
	if g.ErrorCode != codec.None {
		return "describe: " + g.ErrorCode.String()
	}
	var ms []string
	for _, m := range g.Members {
		ms = append(ms, fmt.Sprintf("%s@%d", short(m.MemberId), m.MemberEpoch))
	}
	return fmt.Sprintf("describe: %d members [%s]", len(g.Members), strings.Join(ms, " "))
}

// short drops the suite's prefix from an id for display.
func short(id string) string {
	if i := strings.LastIndex(id, "-"); i >= 0 && i < len(id)-1 {
		return id[i+1:]
	}
	return id
}

func hbString(r *codec.ConsumerGroupHeartbeatResponse) string {
	s := r.ErrorCode.String()
	if r.ErrorCode == codec.None {
		s += fmt.Sprintf(" member=%s epoch=%d interval=%d", short(r.MemberId.Value), r.MemberEpoch, r.HeartbeatIntervalMs)
		if r.Assignment != nil {
			n := 0
			for _, t := range r.Assignment.TopicPartitions {
				n += len(t.Partitions)
			}
			s += fmt.Sprintf(" assigned=%d", n)
		}
	} else if r.MemberId.Valid || r.MemberEpoch != 0 || r.HeartbeatIntervalMs != 0 {
		s += fmt.Sprintf(" member=%v epoch=%d interval=%d", r.MemberId, r.MemberEpoch, r.HeartbeatIntervalMs)
	}
	return s
}

func (c *pconn) leaveGroup(v int16, group string, ms ...codec.LeaveGroupMember) *codec.LeaveGroupResponse {
	req := &codec.LeaveGroupRequest{GroupId: group}
	if v >= 3 {
		req.Members = ms
		if v < 5 {
			for i := range req.Members {
				req.Members[i].Reason = codec.Null
			}
		}
	} else {
		req.MemberId = ms[0].MemberId
	}
	return c.do(codec.LeaveGroup, v, req).(*codec.LeaveGroupResponse)
}

func lgString(r *codec.LeaveGroupResponse) string {
	var parts []string
	for _, m := range r.Members {
		parts = append(parts, fmt.Sprintf("%s/%s:%s", short(m.MemberId), short(m.GroupInstanceId.Value), m.ErrorCode))
	}
	if len(parts) == 0 {
		return "top " + r.ErrorCode.String()
	}
	return fmt.Sprintf("top %s members [%s]", r.ErrorCode, strings.Join(parts, " "))
}
