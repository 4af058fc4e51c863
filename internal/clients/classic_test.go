package clients_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// Real classic consumers through the recording proxy to kfake's classic
// coordinator (one broker, ten records in alpha), one scenario per test
// and client: franz-go's kgo (classic is its default; kgo.InstanceID makes
// it static), IBM's sarama (Consumer.Group.InstanceId, JoinGroup v5+) and
// segmentio's kafka-go (dynamic only, JoinGroup v1-v2). Each is held to
// the classic client rules of docs/PROTOCOL.md Part C and to what Java's
// client does where the proxy cannot judge (a static member's close sends
// no LeaveGroup; a fenced one stops). What a client does not implement is
// asserted NOT ADOPTED; a violation is a known finding (classicFindings,
// docs/findings.md) with the behaviour observed: a finding that stops
// reproducing, or a violation that is not one, fails the test.
//
// ghostcheck's own server (`serve`) answers no Metadata, FindCoordinator,
// Fetch or OffsetFetch, which every real consumer needs: the real clients
// run against kfake; the proxy's scripted classic clients run against
// serve (package proxy's classic tests).

// classicProcess is one running consumer process.
type classicProcess interface {
	// consumed is how many records it got so far.
	consumed() int
	// close ends it the way its library closes (a graceful close).
	close()
}

// classicLib starts consumer processes of one library.
type classicLib struct {
	name string
	// static: the library can be a static member.
	static bool
	// minJoin is the lowest JoinGroup version it sends to kfake (which
	// offers v0-v9).
	minJoin int16
	start   func(t *testing.T, addr, group, clientID, instance string) classicProcess
}

// newClassicEnv is a classic scenario's world: one kfake broker and the
// proxy in front of it.
func newClassicEnv(t *testing.T, faults proxy.Injector) *proxyEnv {
	t.Helper()
	e := newProxyEnv(t, faults, kfake.NumBrokers(1))
	e.target, e.client = "kfake (1 broker, in-process)", "a classic consumer"
	e.keepName = strings.ToLower(strings.NewReplacer("Test", "", "/", "-", "_", "-").Replace(t.Name()))
	return e
}

// waitConsumed waits until p consumed want records (at most 30 s, as a
// loaded machine may take).
func waitConsumed(t *testing.T, p classicProcess, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for p.consumed() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := p.consumed(); got < want {
		t.Errorf("consumed %d records, want %d", got, want)
	}
}

// expectClassic holds a classic client to its outcomes: every violation
// one of findings (each must reproduce); KIP-1313's header rules NOT
// ADOPTED (none of these clients sends tag 0, and each repeats ClientId);
// a client below JoinGroup v4 NOT ADOPTED for KIP-394's rule and below v5
// for KIP-345's.
func expectClassic(t *testing.T, lib classicLib, c rules.ClientResult, findings ...finding) {
	t.Helper()
	expectFindings(t, c, findings)
	for _, rule := range []rules.Rule{rules.RuleClientInstanceIDInHeader, rules.RuleClientIDOnFirstRequest} {
		// NOT ADOPTED, or nothing to judge: a client of old versions only
		// sends no header v2.
		if r := c.Result(rule); r.Outcome != rules.OutcomeNotAdopted && (rule != rules.RuleClientInstanceIDInHeader || r.Outcome != rules.OutcomeNotSeen) {
			t.Errorf("%s: %s %s; %s sends no KIP-1313 headers", rule, r.Outcome, r.Detail, lib.name)
		}
	}
	notAdopted := map[rules.Rule]bool{
		rules.RuleMemberIDRequiredRejoin:      lib.minJoin < 4,
		rules.RuleClassicStaticInstanceID:     lib.minJoin < 5,
		rules.RuleNoRejoinAfterFencedInstance: lib.minJoin < 5,
	}
	for rule, na := range notAdopted {
		if r := c.Result(rule); na != (r.Outcome == rules.OutcomeNotAdopted) {
			t.Errorf("%s: %s %s; %s sends JoinGroup v%d", rule, r.Outcome, r.Detail, lib.name, lib.minJoin)
		}
	}
}

// classicRequests are the recorded requests of one client, by ClientId.
func classicRequests(reqs []rules.ClientRequest, clientID string) []rules.ClientRequest {
	var out []rules.ClientRequest
	for _, r := range reqs {
		if r.Header.ClientId.Valid && r.Header.ClientId.Value == clientID {
			out = append(out, r)
		}
	}
	return out
}

// faultOnce applies f to the first group request of api that pred (nil:
// any) accepts.
func faultOnce(api codec.APIKey, pred func(proxy.GroupRequest) bool, f proxy.Fault) proxy.Injector {
	return onceFor(func(r proxy.GroupRequest) bool {
		return r.Header.RequestApiKey == api && (pred == nil || pred(r))
	}, f)
}

// withMemberID accepts a JoinGroup that carries a member id (the second
// join of a dynamic member after MEMBER_ID_REQUIRED).
func withMemberID(r proxy.GroupRequest) bool { return r.JoinGroup != nil && r.JoinGroup.MemberId != "" }

// leaveGroups counts the LeaveGroups in reqs.
func leaveGroups(reqs []rules.ClientRequest) int {
	n := 0
	for _, r := range reqs {
		if _, ok := r.Request.(*codec.LeaveGroupRequest); ok {
			n++
		}
	}
	return n
}

// joinAnswers are the JoinGroup answers the client got, in order.
func joinAnswers(reqs []rules.ClientRequest) []*codec.JoinGroupResponse {
	var out []*codec.JoinGroupResponse
	for _, r := range reqs {
		if resp, ok := r.Response.(*codec.JoinGroupResponse); ok {
			out = append(out, resp)
		}
	}
	return out
}

// classicScenarios runs every scenario on lib, each a subtest, side by
// side.
func classicScenarios(t *testing.T, lib classicLib, findings map[string][]finding) {
	instance := func(static bool, name string) string {
		if static {
			return name
		}
		return ""
	}
	modes := []bool{false}
	if lib.static {
		modes = append(modes, true)
	}
	for _, static := range modes {
		kind := "dynamic"
		if static {
			kind = "static"
		}
		name := func(s string) string { return kind + "/" + s }
		got := func(s string) []finding { return findings[name(s)] }

		// Steady join, consume every record, close: a static member
		// sends no LeaveGroup on close (KIP-345's design, Java's client
		// since Kafka 2.3), a dynamic one may.
		t.Run(name("steady"), func(t *testing.T) {
			t.Parallel()
			e := newClassicEnv(t, nil)
			p := lib.start(t, e.proxy.Addr(), e.group, "c", instance(static, "i1"))
			waitConsumed(t, p, 10)
			p.close()
			v, reqs := e.verdicts()
			expectClassic(t, lib, v["c"], got("steady")...)
			var row []string
			for _, r := range v["c"].Results {
				row = append(row, string(r.Rule)+"="+string(r.Outcome))
			}
			t.Logf("verdicts of %s (%s): %s", lib.name, kind, strings.Join(row, " "))
			if n := leaveGroups(classicRequests(reqs, "c")); static && n > 0 && len(got("steady-leave")) == 0 {
				t.Errorf("a static member sent %d LeaveGroups on close", n)
			}
			if lib.minJoin >= 4 && !static {
				if r := v["c"].Result(rules.RuleMemberIDRequiredRejoin); r.Outcome != rules.OutcomePass {
					t.Errorf("MemberIDRequiredRejoin %s %s", r.Outcome, r.Detail)
				}
			}
			if static {
				if r := v["c"].Result(rules.RuleClassicStaticInstanceID); r.Outcome != rules.OutcomePass {
					t.Errorf("ClassicStaticInstanceID %s %s", r.Outcome, r.Detail)
				}
			}
		})

		// The first JoinGroup's answer is lost (MEMBER_ID_REQUIRED for a
		// dynamic member of v4+, the generation for a static one); and,
		// for a dynamic member of v4+, the answer to its join with the id
		// given.
		lost := map[string]func(proxy.GroupRequest) bool{"lost-first-join": nil}
		if !static && lib.minJoin >= 4 {
			lost["lost-join-with-id"] = withMemberID
		}
		for what, pred := range lost {
			t.Run(name(what), func(t *testing.T) {
				t.Parallel()
				e := newClassicEnv(t, faultOnce(codec.JoinGroup, pred, proxy.Fault{Kind: proxy.DropResponse}))
				p := lib.start(t, e.proxy.Addr(), e.group, "c", instance(static, "i1"))
				waitConsumed(t, p, 10)
				p.close()
				v, _ := e.verdicts()
				e.faulted()
				expectClassic(t, lib, v["c"], got(what)...)
			})
		}

		// Errors injected on the first SyncGroup or Heartbeat: the
		// client recovers and consumes every record (FENCED_INSTANCE_ID,
		// to a static member, is fatal: it must stop naming the
		// instance, NoRejoinAfterFencedInstance).
		codes := []codec.ErrorCode{codec.RebalanceInProgress, codec.IllegalGeneration, codec.UnknownMemberID, codec.NotCoordinator}
		if static {
			codes = append(codes, codec.FencedInstanceID)
		}
		for _, api := range []codec.APIKey{codec.SyncGroup, codec.Heartbeat} {
			for _, code := range codes {
				what := api.String() + "-" + code.String()
				t.Run(name(what), func(t *testing.T) {
					t.Parallel()
					e := newClassicEnv(t, faultOnce(api, nil, proxy.Fault{Kind: proxy.AnswerError, Code: code}))
					p := lib.start(t, e.proxy.Addr(), e.group, "c", instance(static, "i1"))
					deadline := time.Now().Add(30 * time.Second)
					for e.proxy.Stats().Faults == 0 && time.Now().Before(deadline) {
						time.Sleep(20 * time.Millisecond)
					}
					if code == codec.FencedInstanceID {
						time.Sleep(2 * time.Second) // what it does next
					} else {
						waitConsumed(t, p, 10)
						time.Sleep(time.Second) // its heartbeats after
					}
					p.close()
					v, _ := e.verdicts()
					if n := e.proxy.Stats().Faults; n != 1 {
						t.Fatalf("%d faults applied, want 1", n)
					}
					expectClassic(t, lib, v["c"], got(what)...)
					if code == codec.FencedInstanceID && len(got(what)) == 0 {
						if r := v["c"].Result(rules.RuleNoRejoinAfterFencedInstance); r.Outcome != rules.OutcomePass {
							t.Errorf("NoRejoinAfterFencedInstance %s %s", r.Outcome, r.Detail)
						}
					}
				})
			}
		}
		if !static {
			continue
		}

		// A static restart: the first process closes (no LeaveGroup), a
		// second with the same instance id joins and is given the
		// generation the first held: no rebalance (KIP-345).
		t.Run(name("restart"), func(t *testing.T) {
			t.Parallel()
			e := newClassicEnv(t, nil)
			a := lib.start(t, e.proxy.Addr(), e.group, "a", "i1")
			waitConsumed(t, a, 10)
			a.close()
			b := lib.start(t, e.proxy.Addr(), e.group, "b", "i1")
			time.Sleep(2 * time.Second)
			b.close()
			v, reqs := e.verdicts()
			expectClassic(t, lib, v["a"], got("restart")...)
			expectClassic(t, lib, v["b"], got("restart")...)
			ja, jb := joinAnswers(classicRequests(reqs, "a")), joinAnswers(classicRequests(reqs, "b"))
			switch {
			case len(ja) == 0 || len(jb) == 0:
				t.Errorf("join answers: %d of a, %d of b", len(ja), len(jb))
			case leaveGroups(classicRequests(reqs, "a")) > 0:
				t.Logf("the first process sent a LeaveGroup: the restart is a new member")
			case jb[0].ErrorCode != codec.None || jb[0].GenerationId != ja[len(ja)-1].GenerationId:
				t.Errorf("the restarted member joined %v at generation %d, the first held %d: a rebalance", jb[0].ErrorCode, jb[0].GenerationId, ja[len(ja)-1].GenerationId)
			}
		})

		// Two processes with one instance id: the second takes the
		// instance over, the first is told FENCED_INSTANCE_ID and must
		// stop naming it (Java's client: fatal).
		t.Run(name("two-processes"), func(t *testing.T) {
			t.Parallel()
			e := newClassicEnv(t, nil)
			a := lib.start(t, e.proxy.Addr(), e.group, "a", "i1")
			waitConsumed(t, a, 10)
			b := lib.start(t, e.proxy.Addr(), e.group, "b", "i1")
			time.Sleep(4 * time.Second)
			a.close()
			b.close()
			v, _ := e.verdicts()
			expectClassic(t, lib, v["a"], got("two-processes-a")...)
			expectClassic(t, lib, v["b"], got("two-processes-b")...)
			if r := v["a"].Result(rules.RuleNoRejoinAfterFencedInstance); r.Outcome == rules.OutcomeNotSeen {
				t.Errorf("the first process was never told FENCED_INSTANCE_ID: %s", r.Detail)
			}
		})
	}
}

// ctxFor is a context cancelled when the test ends.
func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}
