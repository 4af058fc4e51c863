package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The cases of a cluster of brokers: one client process on every broker
// (A2: one client instance id, each connection's first ClientId), and
// what a broker that is not a group's coordinator answers (§B4.5). Each
// needs two brokers or more whose groups' coordinators differ; against one
// broker it is SKIP.

// casesCluster are the cases a cluster adds.
func casesCluster() []Case {
	return []Case{
		{Name: "A2/instance-id-every-broker", Source: "KIP-482 (tagged fields), Kafka 2.4",
			Rule: "one process, one client instance id in every header, joins a group on every broker: each join is answered NONE and each broker's Describe lists its member", run: caseEveryBroker(false)},
		{Name: "A2/first-clientid-every-broker", Source: srcKIP1313,
			Rule: "one process joins a group on every broker, each connection's first request carrying its ClientId and the joins null: each broker's Describe shows that ClientId", run: caseEveryBroker(true)},
		{Name: "B4.5/not-coordinator-elsewhere", Source: srcKafka40,
			Rule: "a join sent to a broker that does not coordinate the group is NOT_COORDINATOR and makes no member", run: caseNotCoordinatorElsewhere},
		{Name: "B4.5/find-coordinator-batch", Source: "KIP-699, Kafka 3.0",
			Rule: "FindCoordinator v4+ naming the groups of every broker answers one entry per key, each the coordinator the key alone is given", run: caseFindCoordinatorBatch},
	}
}

// needsCluster starts the SKIP of a cluster case against one broker.
const needsCluster = "needs a cluster of two brokers or more"

// brokers are the cluster's broker ids; fewer than two ends the case as
// SKIP.
func (p *probe) brokers() []int32 {
	var ids []int32
	for _, b := range p.cl.Brokers() {
		ids = append(ids, b.ID)
	}
	if len(ids) < 2 {
		panic(abort{skip(fmt.Sprintf("%s; %d known", needsCluster, len(ids)))})
	}
	return ids
}

// groupOn draws a group id coordinated by broker id.
func (p *probe) groupOn(id int32) string {
	base := p.id("c")
	for i := 0; i < maxGroupDraws; i++ {
		g := fmt.Sprintf("%s.%d", base, i)
		if p.coordinator(g) == id {
			return g
		}
	}
	panic(abort{skip(fmt.Sprintf("no group name of %d tried is coordinated by broker %d", maxGroupDraws, id))})
}

// connTo opens a connection to broker id whose first request carries
// clientID (dialled on its first request).
func (p *probe) connTo(id int32, clientID codec.NullableString) *pconn {
	c := p.connAs(clientID)
	c.broker = id
	return c
}

// caseEveryBroker: one process (the probe's one client instance id in
// every header) opens a connection to each broker with ClientId
// "ghostcheck-cluster", asks ApiVersions first, then joins a group that
// broker coordinates with a null ClientId. clientIDs judges what each
// Describe shows as the member's ClientId (KIP-1313); otherwise each join
// must be NONE and each Describe list the member (a broker that refuses,
// or drops, a process it knows from another broker by its instance id).
func caseEveryBroker(clientIDs bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needs(codec.ConsumerGroupDescribe)
		var obs []string
		ok := true
		for _, id := range p.brokers() {
			g, m := p.groupOn(id), p.id("m")
			c := p.connTo(id, codec.Str("ghostcheck-cluster"))
			c.do(codec.ApiVersions, min(p.max(codec.ApiVersions), 3), &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck", ClientSoftwareVersion: "1.0"})
			r := c.hb(p.hbv(), p.joinReq(g, m))
			if r.ErrorCode != codec.None {
				ok = false
				obs = append(obs, fmt.Sprintf("broker %d: join %s", id, hbString(r)))
				continue
			}
			d := c.describe(g)
			var shown *string
			for _, mm := range d.Members {
				if mm.MemberId == m {
					shown = &mm.ClientId
				}
			}
			switch {
			case shown == nil:
				ok = false
				obs = append(obs, fmt.Sprintf("broker %d: join NONE, %s", id, describeString(d)))
			case clientIDs:
				ok = ok && *shown == "ghostcheck-cluster"
				obs = append(obs, fmt.Sprintf("broker %d: ClientId %q", id, *shown))
			default:
				obs = append(obs, fmt.Sprintf("broker %d: join NONE, listed", id))
			}
		}
		if clientIDs {
			return want(ok, strings.Join(obs, "; "), `"ghostcheck-cluster" on every broker`)
		}
		return want(ok, strings.Join(obs, "; "), "NONE and listed on every broker")
	}
}

// caseNotCoordinatorElsewhere sends a join of a group to a broker that
// does not coordinate it: NOT_COORDINATOR, and the group's coordinator
// lists no member (a broker that took the join would make a member its
// client cannot find again: a ghost).
func caseNotCoordinatorElsewhere(p *probe) verdict {
	ids := p.brokers()
	g, m := p.id("g"), p.id("m")
	coord := p.coordinator(g)
	other := ids[0]
	if other == coord {
		other = ids[1]
	}
	c := p.connTo(other, codec.Str("ghostcheck-check"))
	req := p.joinReq(g, m)
	if p.known.Workaround(WorkaroundJoinRegex) {
		req = joinRegexEmpty(nil, req).(*codec.ConsumerGroupHeartbeatRequest)
	}
	// Straight to the broker: not through the cluster, which would
	// follow the NOT_COORDINATOR to the coordinator.
	resp, err := c.wire().RoundTrip(c.header(codec.ConsumerGroupHeartbeat, p.hbv()), req)
	if err != nil {
		return fail(fmt.Sprintf("join at broker %d: %v", other, err), "NOT_COORDINATOR")
	}
	r := resp.(*codec.ConsumerGroupHeartbeatResponse)
	obs := fmt.Sprintf("join at broker %d (the coordinator is %d): %s", other, coord, hbString(r))
	if p.max(codec.ConsumerGroupDescribe) < 0 {
		return want(r.ErrorCode == codec.NotCoordinator, obs, "NOT_COORDINATOR")
	}
	d := p.conn().describe(g) // at the coordinator
	_, made := members(d)[m]
	return want(r.ErrorCode == codec.NotCoordinator && !made, obs+"; at the coordinator "+describeString(d), "NOT_COORDINATOR, and no member")
}

// caseFindCoordinatorBatch asks FindCoordinator v4+ (KIP-699's batch)
// for a group of every broker, of each broker in turn: one entry per key,
// none missing or twice, each naming the broker the key alone is given.
func caseFindCoordinatorBatch(p *probe) verdict {
	v := p.max(codec.FindCoordinator)
	if v < 4 {
		return skip(fmt.Sprintf("needs FindCoordinator v4 (KIP-699's batch); the broker offers %s", p.offered(codec.FindCoordinator)))
	}
	ids := p.brokers()
	coordOf := map[string]int32{}
	var keys []string
	for _, id := range ids {
		g := p.groupOn(id)
		coordOf[g], keys = id, append(keys, g)
	}
	var obs []string
	ok := true
	for _, asked := range ids {
		resp, err := p.cl.RoundTripTo(p.ctx, asked, v, &codec.FindCoordinatorRequest{KeyType: codec.CoordinatorKeyGroup, CoordinatorKeys: keys})
		if err != nil {
			return fail(fmt.Sprintf("FindCoordinator v%d to broker %d: %v", v, asked, err), "an answer")
		}
		r := resp.(*codec.FindCoordinatorResponse)
		var got []string
		seen := map[string]int{}
		for _, e := range r.Coordinators {
			seen[e.Key]++
			got = append(got, fmt.Sprintf("%s→%d %s", short(e.Key), e.NodeId, e.ErrorCode))
			ok = ok && e.ErrorCode == codec.None && coordOf[e.Key] == e.NodeId
		}
		for _, k := range keys {
			ok = ok && seen[k] == 1
		}
		ok = ok && len(r.Coordinators) == len(keys)
		slices.Sort(got)
		obs = append(obs, fmt.Sprintf("broker %d: [%s]", asked, strings.Join(got, " ")))
	}
	var exp []string
	for _, k := range keys {
		exp = append(exp, fmt.Sprintf("%s→%d", short(k), coordOf[k]))
	}
	return want(ok, strings.Join(obs, "; "), fmt.Sprintf("one entry per key from every broker: %s", strings.Join(exp, " ")))
}

// ClusterDiffers holds the results of the same cases, in the same order,
// against one broker (one) and against a cluster (many) to what a cluster
// must not change: each case's status and known finding are the same
// (coordinators found, their errors retried, never judged), but for the
// cases that need a cluster, which SKIP against one broker and must run
// against the cluster. A case that either run was too slow to judge is
// left out. Each line says what differs; none when nothing does.
func ClusterDiffers(one, many []Result) []string {
	if len(one) != len(many) {
		return []string{fmt.Sprintf("%d results against one broker, %d against the cluster", len(one), len(many))}
	}
	var out []string
	for i, r := range many {
		o := one[i]
		switch {
		case o.Name != r.Name:
			out = append(out, fmt.Sprintf("result %d: %s against one broker, %s against the cluster", i, o.Name, r.Name))
		case o.TooSlow() || r.TooSlow():
		case o.Status == Skip && strings.HasPrefix(o.Observed, needsCluster):
			if r.Status == Skip {
				out = append(out, fmt.Sprintf("%s: SKIP against the cluster too: %s", r.Name, r.Observed))
			}
		case o.Status != r.Status || o.Known != r.Known:
			out = append(out, fmt.Sprintf("%s: %s against one broker, %s against the cluster (%s)", r.Name, o.StatusText(), r.StatusText(), r.Observed))
		}
	}
	return out
}
