// Package upgradetest takes a fleet of real consumer processes through a
// rolling upgrade from the classic group protocol to KIP-848's and back,
// for the tests of client libraries (internal/clients: franz-go's kgo;
// peers/librdkafka: librdkafka's consumer). The group's coordinator is
// ghostcheck's own (impl over impl/server, mixed groups under Kafka's
// default BIDIRECTIONAL policy, docs/PROTOCOL.md A7); a full broker the
// caller starts (kfake) answers the rest through a split broker
// (internal/splitbroker); every request of the processes goes through the
// recording proxy, whose recording the caller judges.
//
// Three processes, one a partition-holder each, consume one topic on the
// classic protocol; each in turn is closed and replaced by one on the
// consumer protocol, then each in turn back. After every step the group
// must settle: its members exactly the live processes (by ClientId, and by
// the member id each holds where its library says), the same member id
// through every conversion, every partition owned by exactly one of them,
// each process owning what the coordinator says. The group after each step
// and the conversions seen are recorded for the caller to assert (Want).
//
// Only tests use it; it imports no client library (the caller's Process
// wraps one).
package upgradetest

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/splitbroker"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Timers are what the coordinator gives the fleet: consumer-protocol
// sessions (group.consumer.session.timeout.ms) and heartbeat interval;
// classic processes ask for their own session, within 1 s to 60 s.
const (
	SessionTimeout    = 6 * time.Second
	HeartbeatInterval = 200 * time.Millisecond
)

// World is an upgrade's coordinator, split broker and proxy.
type World struct {
	// Coordinator is ghostcheck's server, described straight (not through
	// the proxy: the recording holds only the processes' requests).
	Coordinator string
	Proxy       *proxy.Proxy
	Group       string
	Topic       string
	Partitions  int32
}

// Start makes the world of one upgrade until tb ends: the coordinator
// (mutants planted, none for a correct one) serving topic, whose id on the
// full broker rest is topicID (the coordinator's assignments name topics
// by id, which the clients resolve through rest's Metadata), the split
// broker joining it to rest, and the proxy the processes connect to.
func Start(tb testing.TB, rest, group, topic string, topicID codec.UUID, partitions int32, mutants impl.Mutants) *World {
	tb.Helper()
	coord := impl.New(impl.Config{
		Topics:           []impl.Topic{{Name: topic, ID: topicID, Partitions: partitions}},
		SessionTimeoutMs: SessionTimeout.Milliseconds(), HeartbeatIntervalMs: int32(HeartbeatInterval.Milliseconds()),
		ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 60000, NewMemberJoinTimeoutMs: 300000,
		MigrationPolicy: impl.MigrationBidirectional, Mutants: mutants,
	})
	coordAddr, _ := servertest.Start(tb, coord, server.Config{})
	split := splitbroker.Start(tb, coordAddr, rest)
	p, err := proxy.Start(proxy.Config{Listen: "127.0.0.1:0", Upstream: split.Addr(), DialUpstream: split.Dial})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return &World{Coordinator: coordAddr, Proxy: p, Group: group, Topic: topic, Partitions: partitions}
}

// Process is one consumer process of the fleet.
type Process interface {
	ClientID() string
	// Consumer says it runs the consumer protocol (KIP-848).
	Consumer() bool
	// MemberID is the member id it holds, when its library says (ok).
	MemberID() (id string, ok bool)
	// Owned is what it owns of the topic now, sorted.
	Owned() []int32
	// Consumed counts the records it got.
	Consumed() int
	// Close ends it the way its library closes; more calls do nothing.
	Close()
}

// StartFunc starts a process: static with instance when it is not "",
// on the consumer protocol when consumer is set.
type StartFunc func(clientID, instance string, consumer bool) Process

// Want are the group after each step ("step: " View.String) and the
// conversions, for a dynamic and a static fleet: the upgrade converts the
// group at the first consumer-protocol process (A7.4), the rollback back
// at the last one's going (A7.5); in between, the classic processes are
// classic members of the consumer group (A7.1). A dynamic process leaves
// on close, so the group settles without it before its successor starts
// ("stopped"); a static one is replaced by its successor (a classic one
// sends no leave, KIP-345; a consumer-protocol one's may be refused), so
// its successor starts at once.
var (
	WantDynamic = []string{"start: classic 3/3 classic",
		"upgrade p0 stopped: classic 2/2 classic", "upgrade p0: consumer 2/3 classic",
		"upgrade p1 stopped: consumer 1/2 classic", "upgrade p1: consumer 1/3 classic",
		"upgrade p2 stopped: consumer 0/2 classic", "upgrade p2: consumer 0/3 classic",
		"rollback p0 stopped: consumer 0/2 classic", "rollback p0: consumer 1/3 classic",
		"rollback p1 stopped: consumer 1/2 classic", "rollback p1: consumer 2/3 classic",
		"rollback p2 stopped: classic 2/2 classic", "rollback p2: classic 3/3 classic"}
	WantStatic = []string{"start: classic 3/3 classic",
		"upgrade p0: consumer 2/3 classic", "upgrade p1: consumer 1/3 classic", "upgrade p2: consumer 0/3 classic",
		"rollback p0: consumer 1/3 classic", "rollback p1: consumer 2/3 classic", "rollback p2: classic 3/3 classic"}
	ConversionsDynamic = []string{"start: none -> classic", "upgrade p0: classic -> consumer", "rollback p2 stopped: consumer -> classic"}
	ConversionsStatic  = []string{"start: none -> classic", "upgrade p0: classic -> consumer", "rollback p2: consumer -> classic"}
)

// Run is what one run of the fleet saw.
type Run struct {
	Steps, Conversions []string
	// Consumed counts the records the classic fleet got at the start.
	Consumed  int
	Processes []Process
}

// Check is Run's report against Want for the fleet (static or not): ""
// when the steps and conversions are the expected ones.
func (r Run) Check(static bool) string {
	steps, conv := WantDynamic, ConversionsDynamic
	if static {
		steps, conv = WantStatic, ConversionsStatic
	}
	switch {
	case !slices.Equal(r.Steps, steps):
		return fmt.Sprintf("the group after each step %q, want %q", r.Steps, steps)
	case !slices.Equal(r.Conversions, conv):
		return fmt.Sprintf("conversions %q, want %q", r.Conversions, conv)
	}
	return ""
}

// Upgrade takes a fleet of three (ClientIds p0-classic, p0-consumer,
// p0-classic-again, ...; instances up-0, ... when static) through the
// upgrade and the rollback, each step given within to settle; it stops at
// the first step that does not, and closes every process it started.
func (w *World) Upgrade(start StartFunc, static bool, within time.Duration) (Run, error) {
	instance := func(i int) string {
		if static {
			return fmt.Sprintf("up-%d", i)
		}
		return ""
	}
	var r Run
	o := observer{w: w, kind: "none", firstIDs: map[string]string{}}
	fleet := make([]Process, 3)
	defer func() {
		for _, p := range fleet {
			if p != nil {
				p.Close()
			}
		}
	}()
	settle := func(step string, live []Process) error {
		v, err := o.settle(step, live, within, &r.Conversions)
		if err == nil {
			r.Steps = append(r.Steps, step+": "+v.String())
		}
		return err
	}
	for i := range fleet {
		fleet[i] = start(fmt.Sprintf("p%d-classic", i), instance(i), false)
	}
	r.Processes = append(r.Processes, fleet...)
	if err := settle("start", fleet); err != nil {
		return r, err
	}
	// Fetches follow the assignment: wait (at most 30 s) for every record.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r.Consumed = 0
		for _, p := range fleet {
			r.Consumed += p.Consumed()
		}
		if r.Consumed >= 10 {
			break
		}
	}
	for _, phase := range []struct {
		name     string
		consumer bool
	}{{"upgrade", true}, {"rollback", false}} {
		for i := range fleet {
			step := fmt.Sprintf("%s p%d", phase.name, i)
			fleet[i].Close()
			if !static {
				if err := settle(step+" stopped", slices.Delete(slices.Clone(fleet), i, i+1)); err != nil {
					return r, err
				}
			}
			suffix := "consumer"
			if !phase.consumer {
				suffix = "classic-again"
			}
			fleet[i] = start(fmt.Sprintf("p%d-%s", i, suffix), instance(i), phase.consumer)
			r.Processes = append(r.Processes, fleet[i])
			if err := settle(step, fleet); err != nil {
				return r, err
			}
		}
	}
	return r, nil
}

// Judge holds a run against a correct coordinator to what it must show,
// failing t where it does not: every step settled (within the run's
// bound), the classic fleet consumed every record (ten), the expected
// steps and conversions, no live process fenced; and returns each
// process's client-rule results, by ClientId, for the caller to hold to
// its library's findings.
func (w *World) Judge(t testing.TB, r Run, err error, static bool) map[string]rules.ClientResult {
	t.Helper()
	t.Logf("the group after each step: %q", r.Steps)
	t.Logf("conversions seen: %q", r.Conversions)
	if err != nil {
		t.Fatal(err)
	}
	if r.Consumed < 10 {
		t.Errorf("the classic fleet consumed %d records, want all 10", r.Consumed)
	}
	if why := r.Check(static); why != "" {
		t.Error(why)
	}
	if f := w.Fencings(); len(f) > 0 {
		t.Errorf("the coordinator fenced live processes: %q", f)
	}
	return w.Verdicts()
}

// Fencings are the coordinator's answers that told a process its member
// is gone or its generation or epoch stale (UNKNOWN_MEMBER_ID,
// ILLEGAL_GENERATION, FENCED_MEMBER_EPOCH, FENCED_INSTANCE_ID): a rolling
// upgrade of processes that close one at a time gets none, whatever the
// conversions do. It closes the proxy.
func (w *World) Fencings() []string {
	w.Proxy.Close()
	var out []string
	for _, r := range w.Proxy.Recording() {
		switch code, _ := r.AnswerCode(); code {
		case codec.UnknownMemberID, codec.IllegalGeneration, codec.FencedMemberEpoch, codec.FencedInstanceID:
			out = append(out, fmt.Sprintf("%s to %s (conn %d)", code, r.Header.ClientId.Value, r.Conn))
		}
	}
	return out
}

// Verdicts closes the proxy and judges the recording: each process's
// results by ClientId.
func (w *World) Verdicts() map[string]rules.ClientResult {
	w.Proxy.Close()
	out := map[string]rules.ClientResult{}
	for _, c := range rules.CheckClients(w.Proxy.Recording()) {
		out[c.ClientID] = c
	}
	return out
}

// View is the group as its coordinator describes it: a classic group
// (DescribeGroups) or a consumer group (ConsumerGroupDescribe).
type View struct {
	Kind string // "classic" or "consumer"
	// Settled: a classic group Stable; a consumer group whose members
	// all hold their target assignment.
	Settled bool
	Members map[string]Member // by ClientId
	// Classic is how many members use the classic protocol: all of a
	// classic group's, and those ConsumerGroupDescribe v1+ types CLASSIC
	// (KIP-1099) in a consumer group.
	Classic int
}

// Member is one member of a View.
type Member struct {
	ID         string
	Partitions []int32 // sorted
}

// String is the group's kind and its members' protocols, as the steps
// record it: "consumer 1/3 classic".
func (v View) String() string {
	return fmt.Sprintf("%s %d/%d classic", v.Kind, v.Classic, len(v.Members))
}

// errNoGroup: neither describe found the group (none yet, or one that
// converted between the two describes).
var errNoGroup = errors.New("neither DescribeGroups nor ConsumerGroupDescribe finds the group")

// Describe asks the coordinator for the group.
func (w *World) Describe() (View, error) {
	c, err := wire.Dial(w.Coordinator, wire.Options{Timeout: 5 * time.Second})
	if err != nil {
		return View{}, err
	}
	defer c.Close()
	hm, err := wire.NewHeaders(codec.Str("upgrade-observer"), codec.UUID{0x0b, 0x5e})
	if err != nil {
		return View{}, err
	}
	n, err := c.Negotiate(hm, wire.NegotiateOptions{})
	if err != nil {
		return View{}, err
	}
	v := View{Members: map[string]Member{}}
	cv, err := n.Versions.Pick(codec.ConsumerGroupDescribe, 0, 1)
	if err != nil {
		return v, err
	}
	resp, err := c.RoundTrip(hm.Next(codec.ConsumerGroupDescribe, cv), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{w.Group}})
	if err != nil {
		return v, err
	}
	if g := resp.(*codec.ConsumerGroupDescribeResponse).Groups; len(g) == 1 && g[0].ErrorCode == codec.None {
		v.Kind, v.Settled = "consumer", true
		for _, m := range g[0].Members {
			v.Members[m.ClientId] = Member{ID: m.MemberId, Partitions: describedPartitions(m.Assignment)}
			if m.MemberType == codec.MemberTypeClassic {
				v.Classic++
			}
			if !slices.Equal(describedPartitions(m.Assignment), describedPartitions(m.TargetAssignment)) {
				v.Settled = false
			}
		}
		return v, nil
	}
	dv, err := n.Versions.Pick(codec.DescribeGroups, 6, 6)
	if err != nil {
		return v, err
	}
	resp, err = c.RoundTrip(hm.Next(codec.DescribeGroups, dv), &codec.DescribeGroupsRequest{Groups: []string{w.Group}})
	if err != nil {
		return v, err
	}
	g := resp.(*codec.DescribeGroupsResponse).Groups
	if len(g) != 1 || g[0].ErrorCode != codec.None {
		return v, errNoGroup
	}
	v.Kind, v.Settled = "classic", g[0].GroupState == "Stable"
	for _, m := range g[0].Members {
		var a codec.ConsumerProtocolAssignment
		if len(m.MemberAssignment) > 0 {
			if _, err := a.Decode(m.MemberAssignment, codec.DecodeOptions{}); err != nil {
				return v, fmt.Errorf("member %s's assignment: %w", m.MemberId, err)
			}
		}
		var ps []int32
		for _, tp := range a.AssignedPartitions {
			ps = append(ps, tp.Partitions...)
		}
		slices.Sort(ps)
		v.Members[m.ClientId] = Member{ID: m.MemberId, Partitions: ps}
		v.Classic++
	}
	return v, nil
}

func describedPartitions(a codec.DescribedAssignment) []int32 {
	var ps []int32
	for _, tp := range a.TopicPartitions {
		ps = append(ps, tp.Partitions...)
	}
	slices.Sort(ps)
	return ps
}

// observer follows the group through a run: its kind, and the first
// member id each process was seen with.
type observer struct {
	w        *World
	kind     string
	firstIDs map[string]string // by ClientId
}

// problem says why the group is not yet what the live processes make
// it, "" when it is.
func (o *observer) problem(v View, live []Process) string {
	if !v.Settled {
		return v.Kind + " group not settled"
	}
	var want, got []string
	for _, p := range live {
		want = append(want, p.ClientID())
	}
	for id := range v.Members {
		got = append(got, id)
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(want, got) {
		return fmt.Sprintf("members %v, live processes %v", got, want)
	}
	owner := map[int32]string{}
	for _, p := range live {
		m := v.Members[p.ClientID()]
		if id, ok := p.MemberID(); ok && id != m.ID {
			return fmt.Sprintf("%s holds member id %q, the group has %q", p.ClientID(), id, m.ID)
		}
		// A member keeps its id through every conversion (A7).
		if first, seen := o.firstIDs[p.ClientID()]; !seen {
			o.firstIDs[p.ClientID()] = m.ID
		} else if first != m.ID {
			return fmt.Sprintf("%s's member id went from %q to %q", p.ClientID(), first, m.ID)
		}
		if own := p.Owned(); !slices.Equal(own, m.Partitions) {
			return fmt.Sprintf("%s owns %v, the coordinator says %v", p.ClientID(), own, m.Partitions)
		}
		for _, n := range m.Partitions {
			if other, dup := owner[n]; dup {
				return fmt.Sprintf("partition %d owned by %s and %s", n, other, p.ClientID())
			}
			owner[n] = p.ClientID()
		}
	}
	if len(owner) != int(o.w.Partitions) {
		return fmt.Sprintf("%d of %s's %d partitions owned", len(owner), o.w.Topic, o.w.Partitions)
	}
	return ""
}

// settle waits (at most within: a loaded machine) until the group is
// what the live processes make it, and returns its view, or says why not;
// every change of the group's kind seen on the way is a conversion, noted
// under step.
func (o *observer) settle(step string, live []Process, within time.Duration, conversions *[]string) (View, error) {
	deadline := time.Now().Add(within)
	var v View
	why := "not described"
	for time.Now().Before(deadline) {
		var err error
		if v, err = o.w.Describe(); err != nil {
			why = err.Error()
		} else {
			if v.Kind != o.kind {
				*conversions = append(*conversions, fmt.Sprintf("%s: %s -> %s", step, o.kind, v.Kind))
				o.kind = v.Kind
			}
			if why = o.problem(v, live); why == "" {
				return v, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return v, fmt.Errorf("%s: the group did not settle in %v: %s", step, within, why)
}
