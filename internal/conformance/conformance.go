// Package conformance holds ghostcheck's conformance suite: one named case
// per rule of docs/PROTOCOL.md A1-A3, §B4.2, §B4.4 and §B5 (plus the framing
// and ApiVersions rules of §B1 and §B7 a broker needs to be talked to),
// each run against a broker over TCP and reported pass or fail with what
// the broker answered. `ghostcheck check` prints it as a table; tests run it
// against ghostcheck's own server and against kfake.
//
// A case holds the broker only to what a client can observe: error codes,
// member ids and epochs, membership as ConsumerGroupDescribe shows it.
// Error messages and assignments are not compared (a foreign broker has its
// own). Each case works in groups of its own (named from Peer.Prefix), so
// cases do not disturb each other and may run against a broker in use.
package conformance

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
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
)

// Peer is the broker under test and what the suite must know of its
// configuration.
type Peer struct {
	Addr string
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
}

// Case is one rule, checked.
type Case struct {
	// Name is "SECTION/what", e.g. "A1/v1-join-empty-member-id".
	Name string
	// Rule says in words what the broker must do.
	Rule string
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
	Status   Status `json:"status"`
	Observed string `json:"observed"`
	Expected string `json:"expected,omitempty"`
	Seconds  float64
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

// Run runs cases against the peer, in order, and returns their results.
// progress, if non-nil, sees each result as it is made.
func Run(peer Peer, cases []Case, progress func(Result)) ([]Result, error) {
	if peer.Timeout <= 0 {
		peer.Timeout = 5 * time.Second
	}
	if peer.Topic == "" {
		peer.Topic = "alpha"
	}
	if peer.Prefix == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		peer.Prefix = "gc-" + hex.EncodeToString(b[:]) + "-"
	}
	versions, err := negotiate(peer)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, c := range cases {
		p := &probe{peer: peer, versions: versions, caseName: c.Name}
		start := time.Now()
		v := p.run(c)
		p.close()
		r := Result{Name: c.Name, Rule: c.Rule, Status: v.status, Observed: v.observed, Expected: v.expected, Seconds: time.Since(start).Seconds()}
		out = append(out, r)
		if progress != nil {
			progress(r)
		}
	}
	return out, nil
}

// negotiate learns the broker's api versions on a connection of its own.
func negotiate(peer Peer) (wire.Versions, error) {
	w, err := wire.Dial(peer.Addr, wire.Options{Timeout: peer.Timeout})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	hm, err := wire.NewHeaders(codec.Str("ghostcheck-check"), probeInstance)
	if err != nil {
		return nil, err
	}
	n, err := w.Negotiate(hm, wire.NegotiateOptions{})
	if err != nil {
		return nil, fmt.Errorf("ApiVersions: %w", err)
	}
	return n.Versions, nil
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

// Table writes the results as an aligned table: case, status, what the
// broker answered, and for failures what the rule expects. known maps case
// names to findings already recorded; a failing case listed there is
// marked "FAIL (known)".
func Table(w io.Writer, rs []Result, known map[string]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRESULT\tOBSERVED\tEXPECTED")
	for _, r := range rs {
		st := string(r.Status)
		if _, ok := known[r.Name]; ok && r.Status == Fail {
			st = "FAIL (known)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, st, oneLine(r.Observed), oneLine(r.Expected))
	}
	tw.Flush()
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
	peer     Peer
	versions wire.Versions
	caseName string
	conns    []*pconn
	seq      int
}

func (p *probe) close() {
	for _, c := range p.conns {
		c.w.Close()
	}
}

// id returns a fresh id for this case ("g", "m", "i" for groups, members,
// instances).
func (p *probe) id(kind string) string {
	p.seq++
	name := strings.ReplaceAll(strings.ReplaceAll(p.caseName, "/", "."), " ", "")
	return fmt.Sprintf("%s%s-%s%d", p.peer.Prefix, name, kind, p.seq)
}

// max is the broker's highest version of key, or -1.
func (p *probe) max(key codec.APIKey) int16 { return p.versions.Max(key) }

// offers reports whether the broker offers key at version.
func (p *probe) offers(key codec.APIKey, v int16) bool { return p.versions.Offers(key, v) }

// hbv is the ConsumerGroupHeartbeat version the suite uses: 1 (KIP-1082)
// when offered.
func (p *probe) hbv() int16 { return min(p.max(codec.ConsumerGroupHeartbeat), 1) }

// pconn is one of a case's connections, with its KIP-1313 headers.
type pconn struct {
	p  *probe
	w  *wire.Conn
	hm *wire.Headers
}

var probeInstance = codec.UUID{0x67, 0x68, 0x6f, 0x73, 0x74, 0x63, 0x68, 0x65, 0x63, 0x6b, 0x2d, 0x63, 0x6f, 0x6e, 0x66, 0x31}

// conn opens a connection whose first request carries ClientId
// "ghostcheck-check".
func (p *probe) conn() *pconn { return p.connAs(codec.Str("ghostcheck-check")) }

func (p *probe) connAs(clientID codec.NullableString) *pconn {
	c, err := p.dial(clientID)
	if err != nil {
		panic(abort{fail("dial: "+err.Error(), "a connection")})
	}
	return c
}

// dial opens a connection whose first request carries clientID.
func (p *probe) dial(clientID codec.NullableString) (*pconn, error) {
	w, err := wire.Dial(p.peer.Addr, wire.Options{Timeout: p.peer.Timeout})
	if err != nil {
		return nil, err
	}
	hm, err := wire.NewHeaders(clientID, probeInstance)
	if err != nil {
		w.Close()
		return nil, err
	}
	c := &pconn{p: p, w: w, hm: hm}
	p.conns = append(p.conns, c)
	return c, nil
}

// header builds a KIP-1313 header: ClientId on the connection's first
// request only, the client instance id in tag 0 of every v2 header.
func (c *pconn) header(key codec.APIKey, v int16) *codec.RequestHeader { return c.hm.Next(key, v) }

// try sends one request and returns the response or the transport error.
func (c *pconn) try(h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	return c.w.RoundTrip(h, req)
}

// do sends one request; a transport error fails the case.
func (c *pconn) do(key codec.APIKey, v int16, req codec.Message) codec.Message {
	resp, err := c.try(c.header(key, v), req)
	if err != nil {
		what := fmt.Sprintf("%v v%d: %v", key, v, err)
		if errors.Is(err, wire.ErrConnClosed) {
			what = fmt.Sprintf("%v v%d: the broker closed the connection without a response", key, v)
		}
		panic(abort{fail(what, "a response")})
	}
	return resp
}

func (c *pconn) hb(v int16, r *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
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
