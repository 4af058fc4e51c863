package explore

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// classicOne is one dynamic classic consumer with one operation and no
// fault.
func classicOne() Config {
	cfg := twoDynamic()
	cfg.Protocol = Classic
	cfg.Clients = Clients(1, 1, 0, 0)
	return cfg
}

// TestClassicSearch: one classic consumer that joins once and closes is
// explored to the end without a violation, and its paths take it through
// KIP-394 (MEMBER_ID_REQUIRED, then the join with the id given), a join
// phase held by the initial rebalance delay and completed by its timer,
// the sync phase and its heartbeats: the clauses of docs/PROTOCOL.md that
// say so are applied.
func TestClassicSearch(t *testing.T) {
	r, err := Run(classicOne())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.Violation != nil {
		t.Fatalf("%s: want complete without a violation", r.Summary())
	}
	for _, c := range []model.Clause{"A6.1/member-id-required", "B8.6/group-created", "B8.7/completed-all-joined", "B8.8/leader-assigns", "B8.9/ok"} {
		if r.Clauses[c] == 0 {
			t.Errorf("clause %s never applied (applied: %v)", c, r.Clauses)
		}
	}
	if r.Terminal == 0 {
		t.Error("no terminal state: a consumer that closed must leave an empty coordinator")
	}
}

// TestClassicDeterminism: a classic configuration with a static and a
// dynamic consumer and lost messages gives the same states on one worker
// and on two.
func TestClassicDeterminism(t *testing.T) {
	cfg := static1(small(9, 7))
	cfg.Protocol, cfg.Admin = Classic, 0
	want, wantFPs := fingerprints(t, cfg)
	if !want.DepthBound || want.States < 200 || want.Violation != nil {
		t.Fatalf("%s: want a search cut at its depth bound with more than 200 states, no violation", want.Summary())
	}
	cfg.Workers = 2
	got, fps := fingerprints(t, cfg)
	if got.States != want.States || got.Transitions != want.Transitions || len(fps) != len(wantFPs) {
		t.Fatalf("two workers: %s; one: %s", got.Summary(), want.Summary())
	}
	for fp := range fps {
		if !wantFPs[fp] {
			t.Fatalf("two workers found a state one did not (%#x)", fp)
		}
	}
}

// TestClassicFingerprintCoversCoordinator: two states that differ only in
// their classic groups (one holds a KIP-394 pending id more) or only in a
// request the coordinator holds unread behind another fingerprint
// differently; two states stepped alike fingerprint alike.
func TestClassicFingerprintCoversCoordinator(t *testing.T) {
	cfg := classicOne()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	w := newWorker(&cfg)
	// Join, send the JoinGroup, deliver it: MEMBER_ID_REQUIRED is on its
	// way back.
	s := w.root()
	for _, e := range []event{mkEvent(evJoin, 0, 0, 0), mkEvent(evSend, 0, 0, 0), mkEvent(evDeliver, 0, 0, 0)} {
		n, err := w.apply(s, e)
		if err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		s = n
	}
	twin := func(tamper func(co *coord)) uint64 {
		t2 := s.clone()
		co := w.fork(s.co)
		if tamper != nil {
			tamper(co)
		}
		w.derive(co)
		t2.co = co
		return w.fingerprint(t2)
	}
	base := w.fingerprint(s)
	if got := twin(nil); got != base {
		t.Fatalf("a copy of a state fingerprints %#x, the state %#x", got, base)
	}
	join := func(conn, delivery uint64, member string) func(co *coord) {
		return func(co *coord) {
			h := codec.RequestHeader{RequestApiKey: codec.JoinGroup, RequestApiVersion: 9, ClientId: codec.Str("other")}
			req := &codec.JoinGroupRequest{GroupId: "g0", SessionTimeoutMs: 3000, RebalanceTimeoutMs: 2000, MemberId: member, ProtocolType: "consumer",
				Protocols: []codec.JoinGroupRequestProtocol{{Name: "uniform", Metadata: []byte{0}}}}
			w.ids.n, w.ids.classic = 9, true
			_, err := co.m.Handle(model.Conn{ID: conn, Host: clientHost, Delivery: delivery}, &h, req)
			if err != nil && !slices.Contains([]error{model.ErrParked}, err) {
				t.Fatalf("the tampering JoinGroup: %v", err)
			}
			co.m.Released()
		}
	}
	pending := twin(join(5, 7, ""))
	if pending == base {
		t.Error("a state whose classic group holds one more pending id fingerprints as the state without it")
	}
	// A member of the group, held by the initial delay, with a request
	// held unread behind its JoinGroup on its connection; then the same
	// without the request behind it.
	withMember := func(behind bool) func(co *coord) {
		return func(co *coord) {
			join(5, 7, "")(co)
			var id string
			for _, g := range co.m.Snapshot() {
				if g.Classic != nil && len(g.Classic.Pending) > 0 {
					id = g.Classic.Pending[len(g.Classic.Pending)-1].ID
				}
			}
			join(5, 8, id)(co)
			if behind {
				h := codec.RequestHeader{RequestApiKey: codec.Heartbeat, RequestApiVersion: 4}
				if _, err := co.m.Handle(model.Conn{ID: 5, Host: clientHost, Delivery: 9}, &h, &codec.HeartbeatRequest{GroupId: "g0", GenerationId: -1, MemberId: id}); err != model.ErrParked {
					t.Fatalf("a Heartbeat behind a held JoinGroup: %v, want it held", err)
				}
			}
		}
	}
	member, memberBehind := twin(withMember(false)), twin(withMember(true))
	if member == base || member == pending {
		t.Error("a state whose classic group holds a member more fingerprints as one without it")
	}
	if memberBehind == member {
		t.Error("a state with a request held unread behind a JoinGroup fingerprints as the state without it")
	}
}

// TestDuplicatedStaticJoinServedByTick: a static consumer's JoinGroup,
// duplicated, arrives twice on its connection while the first join phase
// holds the first copy; the second waits unread behind it (B8.5). The
// tick that ends the phase answers the first and serves the second, which
// replaces the member under a new id (A6.2). That id is drawn alike by the
// model and impl from the state's next id, which the state then counts
// past: no lockstep difference, and no state holds an id numbered at or
// above its next one (a later id would be made twice).
func TestDuplicatedStaticJoinServedByTick(t *testing.T) {
	oneWorker(t)
	cfg := classicOne()
	cfg.Clients = Clients(1, 1, 1, 0)
	cfg.Faults, cfg.MaxFaults, cfg.Depth = Duplicate, 1, 8
	var ahead []string
	cfg.onState = func(w *worker, s *state, _ uint64) {
		w.form(s.co)
		for n := s.nextID; n <= maxIDs; n++ {
			if s.co.ids.has(n) {
				ahead = append(ahead, fmt.Sprintf("id %d held with next id %d at t=%d", n, s.nextID, s.now))
			}
		}
	}
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation != nil || !r.DepthBound {
		t.Fatalf("%s: want a search cut at its depth bound without a violation", r.Summary())
	}
	if len(ahead) > 0 {
		t.Errorf("%d states hold ids the state has not counted: %v", len(ahead), ahead[:min(len(ahead), 3)])
	}
	for _, c := range []model.Clause{"B8.5/connection-held", "A6.2/replaced-completing"} {
		if r.Clauses[c] == 0 {
			t.Errorf("clause %s never applied: the duplicate was not served behind the held join", c)
		}
	}
}
