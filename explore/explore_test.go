package explore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/google/uuid"

	"testing"

	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/model/rules"

	"go.uber.org/goleak"
)

// TestMain is the tests, or a worker process of a test's search
// (testWorkerProcess): this test binary started again with
// testWorkerEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(testWorkerEnv) != "" {
		defer TuneGC(4 << 30)()
		if err := ServeWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "explore test worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// testWorkerEnv marks a worker process started by testWorkerProcess.
const testWorkerEnv = "GHOSTCHECK_EXPLORE_TEST_WORKER"

// testWorkerProcess is Config.StartWorker with real processes: this test
// binary, as TestMain's worker.
func testWorkerProcess(tb testing.TB) func() (io.ReadWriteCloser, error) {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return CommandWorker(exe, []string{"-test.run=^$"}, []string{testWorkerEnv + "=1"}, os.Stderr)
}

// small is d, or less under the race detector (ten times slower), so that
// the tests stay seconds either way.
func small(d, underRace int) int {
	if race.Enabled {
		return underRace
	}
	return d
}

// oneWorker skips, under the race detector, a test whose searches run on
// one worker: it has nothing to race (TestDeterminism and
// TestPlantedViolation run two).
func oneWorker(t *testing.T) {
	if race.Enabled {
		t.Skip("one worker: nothing for the race detector")
	}
}

// oneClient is one dynamic KIP-1082 client with one operation and no
// fault: small enough to enumerate by hand.
func oneClient() Config {
	cfg := twoDynamic()
	cfg.Clients = Clients(1, 1, 0, 0)
	return cfg
}

// TestOneClientByHand holds the search to the state graph of one client
// that joins once and closes, written out by hand from the semantics in
// the package doc (t: the time; "[x, y]": a draining connection's
// requests; rel: a deadline's distance from now):
//
//	A  nothing started                            -> join B
//	B  wants in, join due                         -> close C, send D
//	C  ended before sending: empty coordinator    (terminal)
//	D  join on its way                            -> close E, deliver H
//	E  closed: [join, leave]                      -> deliver F
//	F  member m1, closed: [leave], session rel 3s -> deliver G
//	G  group g0 empty at epoch 2, all ended       (terminal)
//	H  m1 joined, its answer on its way           -> close (=F), deliver K
//	K  joined, next heartbeat in 1s               -> close (=F), tick N
//	N  t=1s, heartbeat due, session rel 2s        -> close O, send Q
//	O  closed: [leave], session rel 2s            -> deliver (=G)
//	Q  heartbeat on its way                       -> close R, deliver T
//	R  closed: [heartbeat, leave]                 -> deliver (=F: the heartbeat renews the session to rel 3s)
//	T  its answer (no assignment) on its way      -> close (=F), deliver (=K: the same state 1 s later)
//
// A closed process's client state is left out of a state (it can do
// nothing more), so closing at H, K or T, or closing at D and seeing the
// join arrive, all come to F; a heartbeat answered comes back to K. 14
// states, 19 transitions, G and C terminal, the deepest (R, T) at 7.
func TestOneClientByHand(t *testing.T) {
	r, err := Run(oneClient())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.Violation != nil {
		t.Fatalf("%s: want complete without a violation", r.Summary())
	}
	want := []uint64{1, 1, 2, 2, 2, 2, 2, 2}
	if r.States != 14 || r.Transitions != 19 || r.Terminal != 2 || r.Depth != 7 || !slices.Equal(r.Levels[:len(r.Levels)-1], want) {
		t.Errorf("%d states, %d transitions, %d terminal, depth %d, levels %v; want 14, 19, 2, 7, %v",
			r.States, r.Transitions, r.Terminal, r.Depth, r.Levels, want)
	}
}

// fingerprints runs cfg and returns its result and every fingerprint its
// search found.
func fingerprints(t *testing.T, cfg Config) (*Result, map[uint64]bool) {
	t.Helper()
	r, s, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	fps := map[uint64]bool{}
	s.seen.each(func(fp uint64) { fps[fp] = true })
	return r, fps
}

// static1 is two clients of one group, one static (its restarts are
// KIP-345's, and the admin may name it by its instance), two operations
// each, an admin LeaveGroup and a lost message, to depth.
func static1(depth int) Config {
	cfg := Default()
	cfg.Clients = Clients(2, 1, 1, 0)
	cfg.Ops, cfg.Admin, cfg.Depth = 2, 1, depth
	return cfg
}

// twoDynamic is two dynamic KIP-1082 clients, one operation each, no
// fault.
func twoDynamic() Config {
	cfg := Default()
	cfg.Clients = Clients(2, 1, 0, 0)
	cfg.Ops, cfg.Faults, cfg.MaxFaults = 1, 0, 0
	return cfg
}

// TestDeterminism: one configuration gives the same search every time,
// on one worker or on two (which states each worker claims may differ;
// which states exist, how many transitions leave them and which clauses
// they apply may not).
func TestDeterminism(t *testing.T) {
	cfg := static1(small(8, 7))
	want, wantFPs := fingerprints(t, cfg)
	if want.Complete || !want.DepthBound || want.States < 200 {
		t.Fatalf("%s: want a search cut at its depth bound with more than 200 states", want.Summary())
	}
	for _, workers := range []int{1, 2} {
		cfg.Workers = workers
		got, fps := fingerprints(t, cfg)
		if got.States != want.States || got.Transitions != want.Transitions || got.Terminal != want.Terminal || !slices.Equal(got.Levels, want.Levels) {
			t.Errorf("%d worker(s): %d states %d transitions %d terminal, levels %v; the first run found %d, %d, %d, %v",
				workers, got.States, got.Transitions, got.Terminal, got.Levels, want.States, want.Transitions, want.Terminal, want.Levels)
		}
		if len(fps) != len(wantFPs) {
			t.Errorf("%d worker(s): %d fingerprints, the first run %d", workers, len(fps), len(wantFPs))
		}
		for fp := range fps {
			if !wantFPs[fp] {
				t.Errorf("%d worker(s) found a state the first run did not (%#x)", workers, fp)
				break
			}
		}
		for c, n := range want.Clauses {
			if got.Clauses[c] != n {
				t.Errorf("%d worker(s): clause %s applied %d times, the first run %d (replays must not count)", workers, c, got.Clauses[c], n)
			}
		}
	}
	// Iterative deepening to the same depth finds the same states.
	cfg.Workers, cfg.Strategy = 1, IterativeDeepening
	got, fps := fingerprints(t, cfg)
	if got.States != want.States || len(fps) != len(wantFPs) || !got.DepthBound {
		t.Errorf("iterative deepening: %s; breadth-first: %s", got.Summary(), want.Summary())
	}
	for fp := range fps {
		if !wantFPs[fp] {
			t.Errorf("iterative deepening found a state breadth-first did not (%#x)", fp)
			break
		}
	}
}

// TestSymmetryIsSound: with client symmetry, the search finds exactly the
// symmetry classes of the states the unreduced search finds (each state's
// class is its canonical fingerprint), up to the same depth, and fewer
// states than it: the reduction loses no state and merges only states
// that are images of one another.
func TestSymmetryIsSound(t *testing.T) {
	oneWorker(t)
	for _, c := range []struct {
		name string
		cfg  func() Config
	}{
		{"two dynamic clients, two operations, a lost answer", func() Config {
			cfg := twoDynamic()
			cfg.Ops, cfg.Faults, cfg.MaxFaults, cfg.Depth = 2, LostResponse, 1, 11
			return cfg
		}},
		{"three dynamic clients", func() Config {
			cfg := twoDynamic()
			cfg.Clients, cfg.Depth = Clients(3, 1, 0, 0), 9
			return cfg
		}},
		{"two static clients of one instance, reordered, a restart", func() Config {
			cfg := twoDynamic()
			cfg.Clients = []Client{{Instance: "i1", HeartbeatVersion: 1}, {Instance: "i1", HeartbeatVersion: 1}}
			cfg.Ops, cfg.Faults, cfg.MaxFaults, cfg.Depth = 2, Reorder|CoordinatorRestart, 1, 9
			return cfg
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sym := c.cfg()
			if err := sym.validate(); err != nil {
				t.Fatal(err)
			}
			canon := newWorker(&sym)
			classes := map[uint64]bool{}
			plain := c.cfg()
			plain.NoSymmetry = true
			plain.onState = func(_ *worker, s *state, _ uint64) { classes[canon.fingerprint(s)] = true }
			rp, _ := fingerprints(t, plain)
			rs, found := fingerprints(t, sym)
			if rs.States >= rp.States {
				t.Errorf("symmetry found %d states, the unreduced search %d: it reduced nothing", rs.States, rp.States)
			}
			if rs.Depth != rp.Depth || rs.Violation != nil || rp.Violation != nil {
				t.Fatalf("reduced: %s; unreduced: %s", rs.Summary(), rp.Summary())
			}
			if len(classes) != len(found) {
				t.Errorf("the unreduced search's %d states fall in %d classes; the reduced search found %d", rp.States, len(classes), len(found))
			}
			for fp := range classes {
				if !found[fp] {
					t.Errorf("a class of the unreduced search's states (%#x) the reduced search never reached", fp)
					break
				}
			}
			for fp := range found {
				if !classes[fp] {
					t.Errorf("the reduced search found a state (%#x) in no class of the unreduced search's", fp)
					break
				}
			}
		})
	}
}

// TestPlantedViolation: an invariant planted for the test (a group never
// holds two members) is broken first after six events, the fewest that
// make two members (each client: its join, its send, the request's
// arrival), and every strategy reports a trace of those six that replays
// to it.
func TestPlantedViolation(t *testing.T) {
	planted := func(o rules.Observation) error {
		for _, g := range o.Groups {
			if len(g.Members) >= 2 {
				return &rules.Violation{Rule: "Planted", Detail: "group " + g.GroupID + " holds two members"}
			}
		}
		return nil
	}
	for _, c := range []struct {
		name     string
		strategy Strategy
		workers  int
	}{{"breadth-first", BreadthFirst, 1}, {"breadth-first on two workers", BreadthFirst, 2}, {"iterative deepening", IterativeDeepening, 1}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := twoDynamic()
			cfg.Strategy, cfg.Workers, cfg.extra = c.strategy, c.workers, planted
			r, err := Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			v := r.Violation
			if v == nil || v.Rule != "Planted" || r.Stopped != "violation" {
				t.Fatalf("%s: want the planted violation", r.Summary())
			}
			if v.Depth != 6 || len(v.Trace) != 6 {
				t.Fatalf("violation at depth %d with a %d-step trace, want 6:\n%s", v.Depth, len(v.Trace), strings.Join(v.Trace, "\n"))
			}
			kinds := map[string]int{}
			for _, e := range v.path {
				kinds[evNames[e.kind()]]++
			}
			if kinds["join"] != 2 || kinds["send"] != 2 || kinds["deliver"] != 2 {
				t.Errorf("the trace's events %v; want two joins, two sends, two deliveries:\n%s", kinds, strings.Join(v.Trace, "\n"))
			}
		})
	}
}

// TestShardsPartition: shards split the search below the first level with
// enough states, and together they find every state the whole search
// finds, each fewer than it.
func TestShardsPartition(t *testing.T) {
	oneWorker(t)
	cfg := static1(8)
	whole, all := fingerprints(t, cfg)
	union := map[uint64]bool{}
	const n = 3
	for i := 0; i < n; i++ {
		cfg.Shard, cfg.Shards = i, n
		r, fps := fingerprints(t, cfg)
		if r.ShardDepth < 1 || r.States >= whole.States {
			t.Errorf("shard %d of %d: %d states, split at depth %d; want fewer than the whole's %d, split somewhere", i, n, r.States, r.ShardDepth, whole.States)
		}
		for fp := range fps {
			if !all[fp] {
				t.Fatalf("shard %d found a state (%#x) the whole search did not", i, fp)
			}
			union[fp] = true
		}
	}
	if len(union) != len(all) {
		t.Errorf("the shards found %d states together, the whole search %d", len(union), len(all))
	}
}

// TestV0Ghost: a ConsumerGroupHeartbeat v0 client whose join's answer is
// lost leaves behind a member the coordinator made and it never learns:
// the ghost KIP-1082 removed, first in four events (join, send, deliver,
// lose the answer; none within three). It is what v0 does, so it is
// counted, not reported, and the search goes on to the end: every
// terminal state holds the ghost gone (QuiescentMembership). The same
// client at v1 makes its own id: no ghost.
func TestV0Ghost(t *testing.T) {
	cfg := oneClient()
	cfg.Clients = Clients(1, 1, 0, 1)
	cfg.Faults, cfg.MaxFaults = LostResponse, 1
	r, err := Run(cfg)
	if err != nil || r.Violation != nil || !r.Complete || r.Terminal == 0 {
		t.Fatalf("%s (%v): want complete, no violation", r.Summary(), err)
	}
	if r.V0Ghosts == 0 || r.V0GhostDepth != 4 {
		t.Fatalf("%d states with a v0 ghost, first at depth %d: want some, first at 4", r.V0Ghosts, r.V0GhostDepth)
	}
	for _, strategy := range []Strategy{BreadthFirst, IterativeDeepening} {
		c := cfg
		c.Strategy, c.Depth = strategy, 3
		if r, err := Run(c); err != nil || r.V0Ghosts != 0 || r.Violation != nil {
			t.Fatalf("%s within 3 events: %s, %d v0 ghosts (%v)", strategy, r.Summary(), r.V0Ghosts, err)
		}
		c.Depth = 8
		if r8, err := Run(c); err != nil || r8.V0Ghosts == 0 || r8.V0GhostDepth != 4 {
			t.Fatalf("%s within 8 events: %s, %d v0 ghosts first at %d (%v)", strategy, r8.Summary(), r8.V0Ghosts, r8.V0GhostDepth, err)
		}
	}
	cfg.Clients = Clients(1, 1, 0, 0) // the same client at v1 makes its own id: no ghost
	if r, err := Run(cfg); err != nil || r.Violation != nil || !r.Complete || r.V0Ghosts != 0 {
		t.Fatalf("a v1 client with a lost answer: %v, %d v0 ghosts (%v)", r.Summary(), r.V0Ghosts, err)
	}
}

// TestMembershipExcusesOnlyV0Ghosts: with v0 clients, a member the
// coordinator made (base64 id) that no live process holds is excused from
// NoGhosts and OneMemberPerProcess; a ghost with a KIP-1082 client's id
// beside it is still reported, and without v0 clients nothing is excused.
func TestMembershipExcusesOnlyV0Ghosts(t *testing.T) {
	v0 := "01zAAAAAQACAAAAAAAAAAQ"                      // the coordinator's 1st id, for a v0 join
	v1 := "02000000-0000-4000-8000-000000000002"        // a KIP-1082 client's
	held := "03zAAAAAQACAAAAAAAAAAw"                    // the coordinator's, held by p1
	classic := "c-04000000-0000-4000-8000-000000000004" // a classic member's
	if !coordinatorMadeConsumerID(v0) || !coordinatorMadeConsumerID(held) || coordinatorMadeConsumerID(v1) || coordinatorMadeConsumerID(classic) {
		t.Fatal("coordinatorMadeConsumerID tells the forms apart wrongly")
	}
	obs := func(ids ...string) rules.Observation {
		g := rules.GroupSnapshot{GroupID: "g0", Kind: rules.KindConsumer}
		for _, id := range ids {
			g.Members = append(g.Members, rules.MemberSnapshot{MemberID: id, Epoch: 1})
		}
		return rules.Observation{Groups: []rules.GroupSnapshot{g},
			Processes: []rules.Process{{Name: "p1", GroupID: "g0", MemberID: held, AllIDs: []string{held}, Live: true, Joined: true}}}
	}
	w := &worker{v0: true}
	if v0Ghost, err := w.membership(obs(held, v0)); err != nil || !v0Ghost {
		t.Fatalf("a v0 ghost beside a held member: %v (counted %v), want excused and counted", err, v0Ghost)
	}
	if v0Ghost, err := w.membership(obs(held, v0, v1)); err == nil || !strings.Contains(err.Error(), v1) || v0Ghost {
		t.Fatalf("a KIP-1082 ghost beside a v0 one: %v (counted %v), want NoGhosts naming %s", err, v0Ghost, v1)
	}
	if _, err := (&worker{}).membership(obs(held, v0)); err == nil || !strings.Contains(err.Error(), v0) {
		t.Fatalf("a v0 ghost without v0 clients: %v, want NoGhosts naming %s", err, v0)
	}
}

// TestMergedStatesAgree: the states the search takes for one (equal
// fingerprints, reached by different paths) have the same successors, up
// to the same merging: the canonical form leaves out nothing that decides
// what comes next. Every state found is followed one step, and every
// state found again is held to the first one's successors.
func TestMergedStatesAgree(t *testing.T) {
	oneWorker(t)
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"v0 and v1 clients, the admin, lost answers (v0 ghosts and all)", func() Config {
			cfg := twoDynamic()
			cfg.Clients = []Client{{HeartbeatVersion: 1}, {HeartbeatVersion: 0}}
			cfg.Ops, cfg.Faults, cfg.Admin, cfg.Depth = 2, LostResponse|Reorder, 1, 7
			cfg.keepGoing = true
			return cfg
		}()},
		{"a static restart, the admin, delays and crashes", func() Config {
			cfg := static1(7)
			cfg.Faults = Delay | Crash | Duplicate
			return cfg
		}()},
		{"classic: a static and a dynamic consumer, the admin, lost messages, crashes and restarts", func() Config {
			cfg := static1(8)
			cfg.Protocol = Classic
			cfg.Faults = LostRequest | LostResponse | Crash | CoordinatorRestart
			return cfg
		}()},
		{"mixed: a consumer and a classic consumer, disconnects and duplicates", func() Config {
			cfg := static1(8)
			cfg.Protocol = Mixed
			cfg.Faults = Disconnect | Duplicate | Delay
			return cfg
		}()},
		{"null owned and regex clients, disconnects, reordered", func() Config {
			cfg := twoDynamic()
			cfg.Clients = []Client{{HeartbeatVersion: 1, NullOwned: true}, {HeartbeatVersion: 1, Regex: true}}
			cfg.Ops, cfg.Faults, cfg.Depth = 2, Disconnect|Reorder|LostRequest, 7
			return cfg
		}()},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			probe := cfg
			if err := probe.validate(); err != nil {
				t.Fatal(err)
			}
			p := newWorker(&probe)
			successors := func(s *state) map[uint64]bool {
				out := map[uint64]bool{}
				for _, e := range p.enabled(s, nil) {
					n, err := p.apply(s, e)
					if err == nil {
						out[p.fingerprint(n)] = true
					}
					p.discard(n)
				}
				return out
			}
			first := map[uint64]map[uint64]bool{}
			checked, failed := 0, false
			cfg.onEdge = func(s *state, fp uint64, isNew bool) {
				next := successors(s)
				if isNew {
					first[fp] = next
					return
				}
				checked++
				if want := first[fp]; !failed && !sameSet(next, want) {
					failed = true
					t.Errorf("two states of fingerprint %#x have different successors: %d and %d", fp, len(want), len(next))
				}
			}
			r, err := Run(cfg)
			if err != nil || r.Violation != nil {
				t.Fatalf("%v %v", r.Summary(), err)
			}
			if checked < 100 {
				t.Errorf("only %d states were found twice: the test shows little", checked)
			}
		})
	}
}

func sameSet(a, b map[uint64]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestIDsSortAsMade: the n-th id of a path, in the form it takes (a
// KIP-1082 client's hex UUID, the coordinator's base64 one), begins with
// n's two hex digits and sorts after every earlier one, whatever its form;
// none is zero, reserved or begins with '-'.
func TestIDsSortAsMade(t *testing.T) {
	var prev []string
	for n := 1; n <= maxIDs; n++ {
		var forms []string
		if u, err := uuid.NewRandomFromReader(bytes.NewReader(func() []byte { b := clientIDBytes(n); return b[:] }())); err != nil {
			t.Fatal(err)
		} else {
			forms = append(forms, u.String())
		}
		forms = append(forms, coordinatorID(n).String())
		for _, prefix := range []string{clientID, "i1"} { // classic ids: a dynamic member's, a static one's
			id := prefix + "-" + uuid.UUID(classicID(n)).String()
			if idNumber(id) != n || classicPrefixLen(id) != len(prefix)+1 {
				t.Fatalf("classic id %q: number %d, prefix %d; want %d, %d", id, idNumber(id), classicPrefixLen(id), n, len(prefix)+1)
			}
			if n > 1 && id <= prefix+"-"+uuid.UUID(classicID(n-1)).String() {
				t.Fatalf("classic id %d %q does not sort after the one before it", n, id)
			}
		}
		for _, id := range forms {
			if idNumber(id) != n {
				t.Fatalf("id %q: number %d, want %d", id, idNumber(id), n)
			}
			if id[0] == '-' || rules.IsZeroUUIDString(id) {
				t.Fatalf("id %q begins with '-' or is zero", id)
			}
			for _, p := range prev {
				if p >= id {
					t.Fatalf("id %d %q does not sort after the earlier %q", n, id, p)
				}
			}
		}
		if u := coordinatorID(n); rules.IsReservedUUID(u) {
			t.Fatalf("coordinator id %d is reserved", n)
		}
		prev = append(prev, forms...)
	}
	var s idSet
	for _, n := range []int{9, 3, 200, 64} {
		s.add(n)
	}
	for n, want := range map[int]byte{0: 0, 3: 1, 9: 2, 64: 3, 200: 4} {
		if got := s.rank(n); got != want {
			t.Errorf("rank(%d) = %d, want %d (ranks from 1; 0 is not an id)", n, got, want)
		}
	}
}
