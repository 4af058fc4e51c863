package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The client rules: what KIP-1082, KIP-1313, KIP-345 and KIP-394 ask of a
// client, checked on the requests a recording proxy (package proxy) saw a
// real client library send, rather than on ghostcheck's own reference
// client.
// Each rule's id and meaning are declared beside the function that checks
// it; docs/PROTOCOL.md Part C has a section per id.
//
// A proxy sees traffic, not processes. It tells clients apart by what the
// traffic says: the client instance id a connection's v2 headers carry
// (KIP-1313), else the ClientId its first request carries, else the
// connection alone. A client that does not send the instance id must
// therefore be given a ClientId of its own for its rules to be judged per
// process.

// ClientRequest is one request a client sent, as a recording proxy saw it,
// with what the client got back.
type ClientRequest struct {
	// Conn numbers the client connection (from 1, in accept order);
	// Broker is the upstream broker it led to (host:port); Seq is the
	// request's position on its connection (0 is the first).
	Conn   uint64
	Broker string
	Seq    int
	// At is when the request arrived, in ms since the recording began;
	// Answered is when its response reached the client, on the same
	// clock (0: not recorded, read as At). A coordinator that holds a
	// JoinGroup or SyncGroup answers it later, and the client may have
	// sent more on the connection meanwhile.
	At, Answered int64
	// HeaderVersion is the request header's version (1, or 2 for a
	// flexible request, whose tags carry the client instance id); the
	// proxy knows it for every api, codec only for those it decodes.
	HeaderVersion int16
	Header        codec.RequestHeader
	// API is the api's name (Kafka's, for every key the proxy knows, not
	// only those codec decodes).
	API string
	// Request is the decoded body for the apis the rules read
	// (ConsumerGroupHeartbeat, LeaveGroup, telemetry, ApiVersions), nil
	// for the others, which are recorded by name.
	Request codec.Message
	// Response is what the client received, decoded for the same apis: the
	// broker's answer, or the error the proxy answered instead. nil when
	// nothing came back (see Fault) or the api is not decoded.
	Response codec.Message
	// Fault says what the proxy did to the request, "" for nothing:
	// "response dropped", "response delayed 200ms", "connection closed
	// after forwarding", "answered UNKNOWN_MEMBER_ID".
	Fault string
}

// Outcome is how a client fared against one rule.
type Outcome string

const (
	// OutcomePass: the client kept the rule every time it could have
	// broken it.
	OutcomePass Outcome = "PASS"
	// OutcomeViolated: the client broke the rule (having adopted it, for
	// a rule of a change it might not implement yet).
	OutcomeViolated Outcome = "VIOLATED"
	// OutcomeNotAdopted: the client does not implement the change the
	// rule belongs to (no request ever carried tag 0, every request
	// repeats ClientId, only ConsumerGroupHeartbeat v0): a fact about the
	// client, not a violation.
	OutcomeNotAdopted Outcome = "NOT ADOPTED"
	// OutcomeNotSeen: nothing the rule speaks of happened (no leave, no
	// telemetry, no LeaveGroup).
	OutcomeNotSeen Outcome = "-"
)

// RuleResult is one rule's outcome for one client.
type RuleResult struct {
	Rule    Rule
	Outcome Outcome
	// Detail names the first violating request, or says why the rule is
	// not adopted or what was judged.
	Detail string
	// Judged counts the requests (or leaves, or member ids) the rule
	// looked at.
	Judged int
}

// ClientResult is the verdict on one client: a result per ClientRules rule.
type ClientResult struct {
	// Client is the client's label in reports: its instance id (and
	// ClientId), its ClientId, or its connection.
	Client     string
	InstanceID codec.NullableUUID
	ClientID   string
	Conns      []uint64
	Brokers    []string
	Requests   int
	Results    []RuleResult
}

// Violated reports whether the client broke any rule.
func (c ClientResult) Violated() bool {
	return c.First() != nil
}

// First is the first violated rule's result, in ClientRules order (nil if
// none).
func (c ClientResult) First() *RuleResult {
	for i := range c.Results {
		if c.Results[i].Outcome == OutcomeViolated {
			return &c.Results[i]
		}
	}
	return nil
}

// Result is the result of rule r (the zero RuleResult if not checked).
func (c ClientResult) Result(r Rule) RuleResult {
	for _, x := range c.Results {
		if x.Rule == r {
			return x
		}
	}
	return RuleResult{}
}

// clientView is one client's requests, in arrival order, and what the
// checks share.
type clientView struct {
	key  string
	reqs []*ClientRequest
	// adoptedTag0: some v2 header of the client carried tag 0 (KIP-1313).
	adoptedTag0 bool
	// instances: the InstanceId the client's ConsumerGroupHeartbeats gave
	// each member id (in its group).
	instances map[groupMember]string
	// hbs are the client's ConsumerGroupHeartbeats, in order: most checks
	// read only them.
	hbs []heartbeat
}

// heartbeat is one ConsumerGroupHeartbeat a client sent.
type heartbeat struct {
	r  *ClientRequest
	hb *codec.ConsumerGroupHeartbeatRequest
}

// ClientRules lists the rules CheckClients judges, in the order of its
// results and reports: KIP-1082's, then KIP-1313's, then KIP-345's, then
// the classic protocol's (KIP-394's and KIP-345's).
func ClientRules() []Rule {
	return []Rule{RuleMemberIDFromFirstHeartbeat, RuleStableMemberID, RuleUniqueMemberIDs, RuleNoHeartbeatAfterLeave,
		RuleClientInstanceIDInHeader, RuleNoZeroUUIDs, RuleClientIDOnFirstRequest, RuleTelemetryInstanceID,
		RuleStaticLeaveWithInstanceID, RuleLeaveGroupInstanceID, RuleLeaveGroupDowngrade,
		RuleMemberIDRequiredRejoin, RuleClassicStaticInstanceID, RuleNoRejoinAfterFencedInstance}
}

// clientOnlyRules are the rules only CheckClients reports (a run checks
// the others too, on every observation).
func clientOnlyRules() []Rule {
	return []Rule{RuleMemberIDFromFirstHeartbeat, RuleNoHeartbeatAfterLeave, RuleTelemetryInstanceID,
		RuleStaticLeaveWithInstanceID, RuleLeaveGroupInstanceID, RuleLeaveGroupDowngrade,
		RuleMemberIDRequiredRejoin, RuleClassicStaticInstanceID, RuleNoRejoinAfterFencedInstance}
}

// IsClientOnly reports whether r is judged only on recorded client traffic.
func (r Rule) IsClientOnly() bool {
	for _, x := range clientOnlyRules() {
		if x == r {
			return true
		}
	}
	return false
}

// clientRuleMeaning is Meaning for the client-only rules.
func clientRuleMeaning(r Rule) string {
	switch r {
	case RuleMemberIDFromFirstHeartbeat:
		return meaningMemberIDFromFirstHeartbeat
	case RuleNoHeartbeatAfterLeave:
		return meaningNoHeartbeatAfterLeave
	case RuleTelemetryInstanceID:
		return meaningTelemetryInstanceID
	case RuleStaticLeaveWithInstanceID:
		return meaningStaticLeaveWithInstanceID
	case RuleLeaveGroupInstanceID:
		return meaningLeaveGroupInstanceID
	case RuleLeaveGroupDowngrade:
		return meaningLeaveGroupDowngrade
	case RuleMemberIDRequiredRejoin:
		return meaningMemberIDRequiredRejoin
	case RuleClassicStaticInstanceID:
		return meaningClassicStaticInstanceID
	case RuleNoRejoinAfterFencedInstance:
		return meaningNoRejoinAfterFencedInstance
	}
	return ""
}

// CheckClients judges every client the requests show against ClientRules.
// reqs are in arrival order (the proxy's order). Clients are listed in the
// order of their first request.
func CheckClients(reqs []ClientRequest) []ClientResult {
	views := splitClients(reqs)
	owners := memberOwners(views)
	brokers := brokerVersions(reqs)
	out := make([]ClientResult, 0, len(views))
	rules := ClientRules()
	checks := make([]func(*clientView) RuleResult, len(rules)) // looked up once, not per client
	for i, r := range rules {
		checks[i] = clientChecks[r]
	}
	for _, v := range views {
		res := describeClient(v)
		res.Results = make([]RuleResult, 0, len(rules))
		for i, r := range rules {
			var rr RuleResult
			switch r {
			case RuleUniqueMemberIDs:
				rr = checkUniqueMemberIDs(v, owners)
			case RuleLeaveGroupDowngrade:
				rr = checkLeaveGroupDowngrade(v, brokers)
			default:
				rr = checks[i](v)
			}
			rr.Rule = r
			res.Results = append(res.Results, rr)
		}
		out = append(out, res)
	}
	return out
}

// clientChecks are the rules judged on one client's requests alone.
var clientChecks = map[Rule]func(*clientView) RuleResult{
	RuleMemberIDFromFirstHeartbeat:  checkMemberIDFromFirstHeartbeat,
	RuleStableMemberID:              checkStableMemberID,
	RuleNoHeartbeatAfterLeave:       checkNoHeartbeatAfterLeave,
	RuleClientInstanceIDInHeader:    checkInstanceIDInHeader,
	RuleNoZeroUUIDs:                 checkClientZeroUUIDs,
	RuleClientIDOnFirstRequest:      checkClientIDOnFirstRequest,
	RuleTelemetryInstanceID:         checkTelemetryInstanceID,
	RuleStaticLeaveWithInstanceID:   checkStaticLeave,
	RuleLeaveGroupInstanceID:        checkLeaveGroupInstanceID,
	RuleMemberIDRequiredRejoin:      checkMemberIDRequiredRejoin,
	RuleClassicStaticInstanceID:     checkClassicStaticInstanceID,
	RuleNoRejoinAfterFencedInstance: checkNoRejoinAfterFencedInstance,
}

// describeClient fills a result's identity from the client's requests.
func describeClient(v *clientView) ClientResult {
	res := ClientResult{Requests: len(v.reqs)}
	for _, r := range v.reqs {
		// A client has few connections and brokers: the lists are their
		// own sets.
		if !slices.Contains(res.Conns, r.Conn) {
			res.Conns = append(res.Conns, r.Conn)
		}
		if !slices.Contains(res.Brokers, r.Broker) {
			res.Brokers = append(res.Brokers, r.Broker)
		}
		if !res.InstanceID.Valid && r.Header.ClientInstanceId.Valid {
			res.InstanceID = r.Header.ClientInstanceId
		}
		if res.ClientID == "" && r.Header.ClientId.Valid {
			res.ClientID = r.Header.ClientId.Value
		}
	}
	switch {
	case strings.HasPrefix(v.key, "instance "):
		res.Client = "instance " + res.InstanceID.UUID.String()
		if res.ClientID != "" {
			res.Client += " (" + res.ClientID + ")"
		}
	case strings.HasPrefix(v.key, "clientId "):
		res.Client = "clientId " + res.ClientID
	default:
		res.Client = v.key
	}
	return res
}

// splitClients groups the requests by client (see the package comment on
// clients): by the first instance id a connection carried; a connection
// without one by its ClientId, joined to the instance id of the
// connections with that ClientId when they all carry one and the same;
// else by the connection alone.
func splitClients(reqs []ClientRequest) []*clientView {
	conns := readConns(reqs)
	byClientID := instancesByClientID(conns)
	var views []*clientView
	index := map[clientIdent]*clientView{}
	counts := map[*clientView]int{}
	for i := range reqs {
		if i > 0 && reqs[i].Conn == reqs[i-1].Conn {
			continue
		}
		ci := conns[reqs[i].Conn]
		if ci.view != nil {
			continue
		}
		c := identify(reqs[i].Conn, ci, byClientID)
		v := index[c]
		if v == nil {
			v = &clientView{key: c.key()}
			index[c] = v
			views = append(views, v)
		}
		ci.view = v
		counts[v] += ci.n
	}
	// The requests are handed out to lists made at their size.
	for _, v := range views {
		v.reqs = make([]*ClientRequest, 0, counts[v])
	}
	var ci *connInfo
	for i := range reqs {
		if i == 0 || reqs[i].Conn != reqs[i-1].Conn {
			ci = conns[reqs[i].Conn]
		}
		ci.view.reqs = append(ci.view.reqs, &reqs[i])
	}
	for _, v := range views {
		v.learn()
	}
	return views
}

// connInfo is what a connection's requests say of their client: the first
// instance id and the first non-empty ClientId they carried; and how many
// requests it carried.
type connInfo struct {
	instance    codec.UUID
	hasInstance bool
	clientID    string
	n           int
	view        *clientView // once its client is known
}

// readConns reads each connection's connInfo from reqs.
func readConns(reqs []ClientRequest) map[uint64]*connInfo {
	conns := map[uint64]*connInfo{}
	var ci *connInfo
	for i := range reqs {
		r := &reqs[i]
		if i == 0 || r.Conn != reqs[i-1].Conn {
			if ci = conns[r.Conn]; ci == nil {
				ci = &connInfo{}
				conns[r.Conn] = ci
			}
		}
		ci.n++
		if !ci.hasInstance && r.Header.ClientInstanceId.Valid {
			ci.instance, ci.hasInstance = r.Header.ClientInstanceId.UUID, true
		}
		if ci.clientID == "" && r.Header.ClientId.Valid && r.Header.ClientId.Value != "" {
			ci.clientID = r.Header.ClientId.Value
		}
	}
	return conns
}

// instances are the instance ids of the connections with one ClientId:
// one of them (any), and whether there are several.
type instances struct {
	one     codec.UUID
	several bool
}

func instancesByClientID(conns map[uint64]*connInfo) map[string]instances {
	byClientID := map[string]instances{}
	for _, ci := range conns {
		if !ci.hasInstance || ci.clientID == "" {
			continue
		}
		if us, ok := byClientID[ci.clientID]; !ok {
			byClientID[ci.clientID] = instances{one: ci.instance}
		} else if us.one != ci.instance {
			byClientID[ci.clientID] = instances{one: us.one, several: true}
		}
	}
	return byClientID
}

// clientIdent is a client: its instance id, else its ClientId, else its
// connection (one field set).
type clientIdent struct {
	instance    codec.UUID
	hasInstance bool
	clientID    string
	conn        uint64
}

// identify is the client of connection conn.
func identify(conn uint64, ci *connInfo, byClientID map[string]instances) clientIdent {
	if ci.hasInstance {
		return clientIdent{instance: ci.instance, hasInstance: true}
	}
	if ci.clientID != "" {
		if us, ok := byClientID[ci.clientID]; ok && !us.several {
			return clientIdent{instance: us.one, hasInstance: true}
		}
		return clientIdent{clientID: ci.clientID}
	}
	return clientIdent{conn: conn}
}

// key is the label reports show for the client, made once per client.
func (c clientIdent) key() string {
	switch {
	case c.hasInstance:
		return "instance " + c.instance.String()
	case c.clientID != "":
		return "clientId " + c.clientID
	}
	return "conn " + strconv.FormatUint(c.conn, 10)
}

// learn fills what the checks share: whether the client sends tag 0, its
// heartbeats, and the instance id its heartbeats gave each member id.
func (v *clientView) learn() {
	n := 0
	for _, r := range v.reqs {
		if _, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest); ok {
			n++
		}
	}
	v.hbs = make([]heartbeat, 0, n)
	for _, r := range v.reqs {
		if r.Header.ClientInstanceId.Valid {
			v.adoptedTag0 = true
		}
		hb, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest)
		if ok {
			v.hbs = append(v.hbs, heartbeat{r, hb})
		}
		if ok && hb.InstanceId.Valid && hb.MemberId != "" {
			if v.instances == nil {
				v.instances = map[groupMember]string{}
			}
			v.instances[groupMember{hb.GroupId, hb.MemberId}] = hb.InstanceId.Value
		}
	}
}

// where names a request in a detail: its connection, broker, api and
// correlation id.
func where(r *ClientRequest) string {
	return fmt.Sprintf("%v v%d (conn %d to %s, correlation id %d)", r.Header.RequestApiKey, r.Header.RequestApiVersion, r.Conn, r.Broker, r.Header.CorrelationId)
}

// heartbeats calls f with each ConsumerGroupHeartbeat of the client.
func (v *clientView) heartbeats(f func(r *ClientRequest, hb *codec.ConsumerGroupHeartbeatRequest)) {
	for _, h := range v.hbs {
		f(h.r, h.hb)
	}
}

// judged is a rule's result once its requests were looked at: the first
// violation if any, else a pass, or none when nothing was judged.
func judged(n int, violation string, pass string) RuleResult {
	switch {
	case violation != "":
		return RuleResult{Outcome: OutcomeViolated, Detail: violation, Judged: n}
	case n == 0:
		return RuleResult{Outcome: OutcomeNotSeen, Judged: 0}
	}
	return RuleResult{Outcome: OutcomePass, Detail: pass, Judged: n}
}
