package clients_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/splitbroker"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
	"github.com/ghostcheck/ghostcheck/wire"
)

// A real rolling upgrade and its rollback: three kgo v1.22.3 processes in
// one group consume alpha on the classic protocol, then each in turn is
// stopped and replaced by a process on the consumer protocol (KIP-848,
// kgo.ServerSideBalancer), then each in turn back. The group's coordinator
// is ghostcheck's own (impl, served by impl/server, mixed groups under
// Kafka's default BIDIRECTIONAL policy, docs/PROTOCOL.md A7); kfake
// answers the rest (Metadata, FindCoordinator, Fetch, OffsetFetch), a
// split broker joining the two, and every request goes through the proxy.
//
// After each step the test waits until the group settles: its members are
// exactly the live processes (by ClientId and by the member id each
// process holds), each holds what the coordinator says it holds, and no
// partition is owned twice. It records the group's kind at each step (the
// conversions: classic to consumer at the first upgrade, back at the last
// rollback) and holds every process to the client rules of both protocols:
// a violation must be a known finding.

// upgradeEnv is the world of one upgrade: kfake (one broker, ten records
// in alpha), ghostcheck's coordinator, the split broker and the proxy.
type upgradeEnv struct {
	*proxyEnv
	coordAddr string
}

func newUpgradeEnv(t *testing.T, mutants impl.Mutants) *upgradeEnv {
	t.Helper()
	cluster := kfaketest.Start(t, kfake.SeedTopics(6, "alpha"), kfake.NumBrokers(1))
	rest := cluster.ListenAddrs()[0]
	produce(t, cluster.ListenAddrs())
	group := "g-" + strings.ReplaceAll(t.Name(), "/", "-")
	topicID := kfakeGroupAndTopic(t, rest, group)
	coord := impl.New(impl.Config{
		Topics:           []impl.Topic{{Name: "alpha", ID: topicID, Partitions: 6}},
		SessionTimeoutMs: 6000, HeartbeatIntervalMs: 200,
		ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 60000, NewMemberJoinTimeoutMs: 300000,
		MigrationPolicy: impl.MigrationBidirectional, Mutants: mutants,
	})
	coordAddr, _ := servertest.Start(t, coord, server.Config{})
	split := splitbroker.Start(t, coordAddr, rest)
	p, err := proxy.Start(proxy.Config{Listen: "127.0.0.1:0", Upstream: split.Addr(), DialUpstream: split.Dial})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	e := &proxyEnv{t: t, cluster: cluster, proxy: p, group: group,
		target: "ghostcheck's coordinator (mixed groups) with kfake for the rest", client: "franz-go kgo v1.22.3",
		keepName: strings.ToLower(strings.NewReplacer("Test", "", "/", "-").Replace(t.Name()))}
	return &upgradeEnv{proxyEnv: e, coordAddr: coordAddr}
}

// kfakeGroupAndTopic returns alpha's topic id on kfake (the coordinator's
// assignments name topics by id, which the clients resolve through
// kfake's Metadata) and makes the group on kfake with offset 0 committed
// on each partition, as an admin does (generation -1): kfake answers the
// processes' OffsetFetch, and answers GROUP_ID_NOT_FOUND for a group it
// never saw.
func kfakeGroupAndTopic(t *testing.T, addr, group string) codec.UUID {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr("alpha")
	meta.Topics = append(meta.Topics, mt)
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil || len(mresp.Topics) != 1 || mresp.Topics[0].ErrorCode != 0 {
		t.Fatalf("kfake's Metadata for alpha: %v %+v", err, mresp)
	}
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation = group, -1
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic, ct.TopicID = "alpha", mresp.Topics[0].TopicID
	for p := range int32(6) {
		cp := kmsg.NewOffsetCommitRequestTopicPartition()
		cp.Partition = p
		ct.Partitions = append(ct.Partitions, cp)
	}
	commit.Topics = append(commit.Topics, ct)
	cresp, err := commit.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range cresp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorCode != 0 {
				t.Fatalf("kfake's OffsetCommit of %s %d: error %d", rt.Topic, rp.Partition, rp.ErrorCode)
			}
		}
	}
	return codec.UUID(mresp.Topics[0].TopicID)
}

// upgradeProcess is one kgo consumer process of the fleet, and what its
// rebalance callbacks say it owns.
type upgradeProcess struct {
	clientID string
	consumer bool // on the consumer protocol (KIP-848)
	cl       *kgo.Client
	n        atomic.Int64
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	once     sync.Once

	mu       sync.Mutex
	owned    map[int32]bool
	memberID string // the first the group was seen to give it
}

// start runs a process: classic (kgo's default, cooperative-sticky), or
// on the consumer protocol (the same balancer, whose server side is the
// uniform assignor, and ServerSideBalancer); static with instance. It
// commits nothing: kfake holds offset 0 for the group.
func (e *upgradeEnv) start(clientID, instance string, consumer bool) *upgradeProcess {
	e.t.Helper()
	p := &upgradeProcess{clientID: clientID, consumer: consumer, owned: map[int32]bool{}}
	opts := []kgo.Opt{kgo.SeedBrokers(e.proxy.Addr()), kgo.ClientID(clientID), kgo.ConsumerGroup(e.group), kgo.ConsumeTopics("alpha"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.DisableAutoCommit(),
		kgo.SessionTimeout(6 * time.Second), kgo.HeartbeatInterval(200 * time.Millisecond), kgo.RebalanceTimeout(5 * time.Second),
		kgo.RequestTimeoutOverhead(2 * time.Second), kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond }),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { p.assigned(m["alpha"], true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { p.assigned(m["alpha"], false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { p.assigned(m["alpha"], false) })}
	if consumer {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	if instance != "" {
		opts = append(opts, kgo.InstanceID(instance))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxFor(e.t))
	p.cl, p.cancel = cl, cancel
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for ctx.Err() == nil {
			p.n.Add(int64(cl.PollFetches(ctx).NumRecords()))
		}
	}()
	e.t.Cleanup(p.close)
	return p
}

func (p *upgradeProcess) assigned(ps []int32, add bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range ps {
		if add {
			p.owned[n] = true
		} else {
			delete(p.owned, n)
		}
	}
}

// ownedNow is what the process owns, sorted.
func (p *upgradeProcess) ownedNow() []int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.owned))
}

// firstID is the first member id the group was seen to give the process
// (id, if none yet).
func (p *upgradeProcess) firstID(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.memberID == "" {
		p.memberID = id
	}
	return p.memberID
}

func (p *upgradeProcess) close() {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		p.cl.Close()
	})
}

// groupView is the group as its coordinator describes it: a classic group
// (DescribeGroups), a consumer group (ConsumerGroupDescribe), or none.
type groupView struct {
	kind string // "classic", "consumer" or "none"
	// settled: a classic group Stable; a consumer group whose members
	// all hold their target assignment.
	settled bool
	members map[string]viewMember // by ClientId
	// classic is how many members use the classic protocol: all of a
	// classic group's, and those ConsumerGroupDescribe v1+ types CLASSIC
	// (KIP-1099) in a consumer group.
	classic int
}

// String is the group's kind and its members' protocols, as the steps
// record it: "consumer 1/3 classic".
func (v groupView) String() string {
	return fmt.Sprintf("%s %d/%d classic", v.kind, v.classic, len(v.members))
}

type viewMember struct {
	memberID   string
	partitions []int32 // sorted
}

// describe asks the coordinator (straight, not through the proxy: the
// recording holds only the processes' requests) for the group.
func (e *upgradeEnv) describe() (groupView, error) {
	w, err := wire.Dial(e.coordAddr, wire.Options{Timeout: 5 * time.Second})
	if err != nil {
		return groupView{}, err
	}
	defer w.Close()
	hm, err := wire.NewHeaders(codec.Str("upgrade-observer"), codec.UUID{0x0b, 0x5e})
	if err != nil {
		return groupView{}, err
	}
	n, err := w.Negotiate(hm, wire.NegotiateOptions{})
	if err != nil {
		return groupView{}, err
	}
	v := groupView{kind: "none", members: map[string]viewMember{}}
	cv, err := n.Versions.Pick(codec.ConsumerGroupDescribe, 0, 1)
	if err != nil {
		return v, err
	}
	resp, err := w.RoundTrip(hm.Next(codec.ConsumerGroupDescribe, cv), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{e.group}})
	if err != nil {
		return v, err
	}
	if g := resp.(*codec.ConsumerGroupDescribeResponse).Groups; len(g) == 1 && g[0].ErrorCode == codec.None {
		v.kind, v.settled = "consumer", true
		for _, m := range g[0].Members {
			v.members[m.ClientId] = viewMember{memberID: m.MemberId, partitions: describedPartitions(m.Assignment)}
			if m.MemberType == codec.MemberTypeClassic {
				v.classic++
			}
			if !slices.Equal(describedPartitions(m.Assignment), describedPartitions(m.TargetAssignment)) {
				v.settled = false
			}
		}
		return v, nil
	}
	dv, err := n.Versions.Pick(codec.DescribeGroups, 6, 6)
	if err != nil {
		return v, err
	}
	resp, err = w.RoundTrip(hm.Next(codec.DescribeGroups, dv), &codec.DescribeGroupsRequest{Groups: []string{e.group}})
	if err != nil {
		return v, err
	}
	g := resp.(*codec.DescribeGroupsResponse).Groups
	if len(g) != 1 || g[0].ErrorCode != codec.None {
		// No group yet, or one that converted between the two
		// describes: look again.
		return v, errNoGroup
	}
	v.kind, v.settled = "classic", g[0].GroupState == "Stable"
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
		v.members[m.ClientId] = viewMember{memberID: m.MemberId, partitions: ps}
		v.classic++
	}
	return v, nil
}

// errNoGroup: neither describe found the group.
var errNoGroup = errors.New("neither DescribeGroups nor ConsumerGroupDescribe finds the group")

func describedPartitions(a codec.DescribedAssignment) []int32 {
	var ps []int32
	for _, tp := range a.TopicPartitions {
		ps = append(ps, tp.Partitions...)
	}
	slices.Sort(ps)
	return ps
}

// problem says why the group is not yet what the live processes make
// it, "" when it is: exactly the live processes as members (ClientId and
// the member id each holds), settled, every partition of alpha owned by
// exactly one of them, and each process owning what the coordinator says.
func (v groupView) problem(live []*upgradeProcess) string {
	if !v.settled {
		return v.kind + " group not settled"
	}
	var want, got []string
	for _, p := range live {
		want = append(want, p.clientID)
	}
	for id := range v.members {
		got = append(got, id)
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(want, got) {
		return fmt.Sprintf("members %v, live processes %v", got, want)
	}
	owner := map[int32]string{}
	for _, p := range live {
		m := v.members[p.clientID]
		if id, _ := p.cl.GroupMetadata(); id != m.memberID {
			return fmt.Sprintf("%s holds member id %q, the group has %q", p.clientID, id, m.memberID)
		}
		// A member keeps its id through every conversion (A7).
		if first := p.firstID(m.memberID); first != m.memberID {
			return fmt.Sprintf("%s's member id went from %q to %q", p.clientID, first, m.memberID)
		}
		if own := p.ownedNow(); !slices.Equal(own, m.partitions) {
			return fmt.Sprintf("%s owns %v, the coordinator says %v", p.clientID, own, m.partitions)
		}
		for _, n := range m.partitions {
			if o, dup := owner[n]; dup {
				return fmt.Sprintf("partition %d owned by %s and %s", n, o, p.clientID)
			}
			owner[n] = p.clientID
		}
	}
	if len(owner) != 6 {
		return fmt.Sprintf("%d of alpha's 6 partitions owned", len(owner))
	}
	return ""
}

// settle waits (at most within: a loaded machine) until the group is
// what the live processes make it, and returns its view, or says why not;
// every change of the group's kind seen on the way is a conversion, noted
// under step.
func (e *upgradeEnv) settle(step string, live []*upgradeProcess, within time.Duration, kind *string, conversions *[]string) (groupView, error) {
	deadline := time.Now().Add(within)
	var v groupView
	why := "not described"
	for time.Now().Before(deadline) {
		var err error
		if v, err = e.describe(); err != nil {
			why = err.Error()
		} else {
			if v.kind != *kind {
				*conversions = append(*conversions, fmt.Sprintf("%s: %s -> %s", step, *kind, v.kind))
				*kind = v.kind
			}
			if why = v.problem(live); why == "" {
				return v, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return v, fmt.Errorf("%s: the group did not settle in %v: %s", step, within, why)
}

// The fleet's findings in an upgrade: a static consumer-protocol
// process's close is G2's leave (epoch -2 without InstanceId, refused by
// Kafka), whatever its instance.
var findingUpgradeStaticLeave = finding{id: "G2", rule: rules.RuleStaticLeaveWithInstanceID, detail: "at epoch -2 without InstanceId"}

func TestKgoRealUpgrade(t *testing.T) {
	t.Parallel()
	for _, static := range []bool{false, true} {
		name := "dynamic"
		if static {
			name = "static"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			realUpgrade(t, static)
		})
	}
}

// upgradeWant is the group after each step ("step: " groupView.String)
// and the conversions, for a dynamic and a static fleet: the upgrade
// converts the group at the first consumer-protocol process (A7.4), the
// rollback back at the last one's going (A7.5); in between, the classic
// processes are classic members of the consumer group (A7.1). A dynamic
// process leaves on close, so the group settles without it before its
// successor starts ("stopped"); a static one is replaced by its successor
// (a classic one sends no leave, KIP-345; a consumer-protocol one's leave
// is G2's, refused), so its successor starts at once.
var (
	upgradeWantDynamic = []string{"start: classic 3/3 classic",
		"upgrade p0 stopped: classic 2/2 classic", "upgrade p0: consumer 2/3 classic",
		"upgrade p1 stopped: consumer 1/2 classic", "upgrade p1: consumer 1/3 classic",
		"upgrade p2 stopped: consumer 0/2 classic", "upgrade p2: consumer 0/3 classic",
		"rollback p0 stopped: consumer 0/2 classic", "rollback p0: consumer 1/3 classic",
		"rollback p1 stopped: consumer 1/2 classic", "rollback p1: consumer 2/3 classic",
		"rollback p2 stopped: classic 2/2 classic", "rollback p2: classic 3/3 classic"}
	upgradeWantStatic = []string{"start: classic 3/3 classic",
		"upgrade p0: consumer 2/3 classic", "upgrade p1: consumer 1/3 classic", "upgrade p2: consumer 0/3 classic",
		"rollback p0: consumer 1/3 classic", "rollback p1: consumer 2/3 classic", "rollback p2: classic 3/3 classic"}
	upgradeConversionsDynamic = []string{"start: none -> classic", "upgrade p0: classic -> consumer", "rollback p2 stopped: consumer -> classic"}
	upgradeConversionsStatic  = []string{"start: none -> classic", "upgrade p0: classic -> consumer", "rollback p2: consumer -> classic"}
)

// upgradeRun is what one run of the fleet saw.
type upgradeRun struct {
	steps, conversions []string
	consumed           int // by the classic fleet at the start
	processes          []*upgradeProcess
}

// run takes the fleet through the upgrade and the rollback, each step
// given within to settle; it stops at the first step that does not.
func (e *upgradeEnv) run(static bool, within time.Duration) (upgradeRun, error) {
	instance := func(i int) string {
		if static {
			return fmt.Sprintf("up-%d", i)
		}
		return ""
	}
	var r upgradeRun
	kind := "none"
	fleet := make([]*upgradeProcess, 3)
	defer func() {
		for _, p := range fleet {
			if p != nil {
				p.close()
			}
		}
	}()
	settle := func(step string, live []*upgradeProcess) error {
		v, err := e.settle(step, live, within, &kind, &r.conversions)
		if err == nil {
			r.steps = append(r.steps, step+": "+v.String())
		}
		return err
	}
	for i := range fleet {
		fleet[i] = e.start(fmt.Sprintf("p%d-classic", i), instance(i), false)
	}
	r.processes = append(r.processes, fleet...)
	if err := settle("start", fleet); err != nil {
		return r, err
	}
	// Fetches follow the assignment: wait (at most 30 s) for every record.
	for deadline := time.Now().Add(30 * time.Second); r.consumed < 10 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r.consumed = 0
		for _, p := range fleet {
			r.consumed += int(p.n.Load())
		}
	}
	for _, phase := range []struct {
		name     string
		consumer bool
	}{{"upgrade", true}, {"rollback", false}} {
		for i := range fleet {
			step := fmt.Sprintf("%s p%d", phase.name, i)
			fleet[i].close()
			if !static {
				others := slices.Delete(slices.Clone(fleet), i, i+1)
				if err := settle(step+" stopped", others); err != nil {
					return r, err
				}
			}
			suffix := "consumer"
			if !phase.consumer {
				suffix = "classic-again"
			}
			fleet[i] = e.start(fmt.Sprintf("p%d-%s", i, suffix), instance(i), phase.consumer)
			r.processes = append(r.processes, fleet[i])
			if err := settle(step, fleet); err != nil {
				return r, err
			}
		}
	}
	return r, nil
}

// fencings are the coordinator's answers that tell a process its member
// is gone or its generation or epoch stale (UNKNOWN_MEMBER_ID,
// ILLEGAL_GENERATION, FENCED_MEMBER_EPOCH, FENCED_INSTANCE_ID): a rolling
// upgrade of processes that close one at a time gets none, whatever the
// conversions do. It closes the proxy.
func (e *upgradeEnv) fencings() []string {
	e.proxy.Close()
	var out []string
	for _, r := range e.proxy.Recording() {
		code, _ := r.AnswerCode()
		switch code {
		case codec.UnknownMemberID, codec.IllegalGeneration, codec.FencedMemberEpoch, codec.FencedInstanceID:
			out = append(out, fmt.Sprintf("%s to %s (conn %d)", code, r.Header.ClientId.Value, r.Conn))
		}
	}
	return out
}

// realUpgrade runs the fleet of three through the upgrade and the
// rollback against a correct coordinator, then judges the recording.
func realUpgrade(t *testing.T, static bool) {
	e := newUpgradeEnv(t, impl.Mutants{})
	r, err := e.run(static, time.Minute)
	t.Logf("the group after each step: %q", r.steps)
	t.Logf("conversions seen: %q", r.conversions)
	if err != nil {
		t.Fatal(err)
	}
	if r.consumed < 10 {
		t.Errorf("the classic fleet consumed %d records, want all 10", r.consumed)
	}
	wantSteps, wantConversions := upgradeWantDynamic, upgradeConversionsDynamic
	if static {
		wantSteps, wantConversions = upgradeWantStatic, upgradeConversionsStatic
	}
	if !slices.Equal(r.steps, wantSteps) {
		t.Errorf("the group after each step %q, want %q", r.steps, wantSteps)
	}
	if !slices.Equal(r.conversions, wantConversions) {
		t.Errorf("conversions %q, want %q", r.conversions, wantConversions)
	}
	if f := e.fencings(); len(f) > 0 {
		t.Errorf("the coordinator fenced live processes: %q", f)
	}
	verdicts, _ := e.verdicts()
	for _, p := range r.processes {
		t.Run(p.clientID, func(t *testing.T) {
			c := verdicts[p.clientID]
			switch {
			case p.consumer && static:
				expect(t, c, findingUpgradeStaticLeave)
			case p.consumer:
				expect(t, c)
			default:
				expectClassic(t, kgoClassic, c)
			}
		})
	}
}

// The upgrade against a coordinator with each of impl's planted mixed
// group bugs (impl.MixedMutants): the checker checks itself. A mutant is
// caught when a step does not settle to the live processes (each owning
// what the coordinator says, no partition owned twice, within 15 s) or
// the group's steps or conversions are not the correct ones; missed says
// which ones a real fleet cannot show, and why.
func TestKgoRealUpgradeCatchesMixedMutants(t *testing.T) {
	t.Parallel()
	missed := map[string]string{
		"classic-session-group-timeout": "every classic process heartbeats every 200 ms: no session runs out, whichever timeout it has",
	}
	for _, m := range impl.MixedMutants() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			e := newUpgradeEnv(t, impl.Mutants{}.With(m.Mutant))
			r, err := e.run(false, 15*time.Second)
			var caught string
			switch {
			case err != nil:
				caught = err.Error()
			case !slices.Equal(r.steps, upgradeWantDynamic):
				caught = fmt.Sprintf("the group after each step %q", r.steps)
			case !slices.Equal(r.conversions, upgradeConversionsDynamic):
				caught = fmt.Sprintf("conversions %q", r.conversions)
			}
			if f := e.fencings(); caught == "" && len(f) > 0 {
				caught = fmt.Sprintf("live processes fenced: %q", f)
			}
			why, miss := missed[m.Name]
			switch {
			case caught != "" && miss:
				t.Errorf("caught (%s), but listed as missed: %s", caught, why)
			case caught != "":
				t.Logf("caught: %s", caught)
			case miss:
				t.Logf("missed, as listed: %s", why)
			default:
				t.Errorf("not caught: %s (%s); steps %q, conversions %q", m.Name, m.Description, r.steps, r.conversions)
			}
		})
	}
}
