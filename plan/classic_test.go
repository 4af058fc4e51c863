package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

func classicOptions(p Protocol) Options {
	o := DefaultOptions()
	o.Protocol = p
	return o
}

// Classic groups are drawn after everything else: a classic or mixed plan
// is its seed's consumer-protocol plan with some groups made classic, and
// a consumer-protocol plan (Protocol "" or consumer) is the one its seed
// gave before classic groups existed.
func TestClassicKeepsTheSeedsPlans(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		before, consumer := New(seed, DefaultOptions()), New(seed, classicOptions(ProtocolConsumer))
		if !reflect.DeepEqual(before, consumer) {
			t.Fatalf("seed %d: Protocol consumer changed the plan", seed)
		}
		for _, proto := range []Protocol{ProtocolClassic, ProtocolMixed} {
			cur := New(seed, classicOptions(proto))
			if !reflect.DeepEqual(before.Faults, cur.Faults) || !reflect.DeepEqual(before.Restarts, cur.Restarts) ||
				!reflect.DeepEqual(before.Admin, cur.Admin) || len(before.Clients) != len(cur.Clients) {
				t.Fatalf("seed %d %s: faults, restarts, removals or clients changed", seed, proto)
			}
			for i, c := range cur.Clients {
				b := before.Clients[i]
				if c.Name != b.Name || c.Group != b.Group || c.Seed != b.Seed || !reflect.DeepEqual(c.Topics, b.Topics) || !keptOrStopped(withoutMetadataChanges(c.Actions), b.Actions) {
					t.Fatalf("seed %d %s client %d: %+v, was %+v", seed, proto, i, c, b)
				}
				if c.Classic == nil && !reflect.DeepEqual(c, b) {
					t.Fatalf("seed %d %s: consumer client %d changed", seed, proto, i)
				}
			}
		}
	}
}

// withoutMetadataChanges is acts without the MetadataChange actions that
// drawClassicClients adds.
func withoutMetadataChanges(acts []Action) []Action {
	var out []Action
	for _, a := range acts {
		if a.Kind != MetadataChange {
			out = append(out, a)
		}
	}
	return out
}

// keptOrStopped reports whether acts are was, or was stopped by a fleet
// stop (drawFleetStop): its actions before a round, then a Close at it.
// Actions are compared by round (drawClassic rewrites a static leave and
// a regex resubscription).
func keptOrStopped(acts, was []Action) bool {
	same := func(a, b []Action) bool {
		return slices.EqualFunc(a, b, func(x, y Action) bool { return x.Round == y.Round })
	}
	if same(acts, was) {
		return true
	}
	n := len(acts) - 1
	if n < 0 || acts[n].Kind != Close || n > len(was) || !same(acts[:n], was[:n]) {
		return false
	}
	return n == len(was) || was[n].Round >= acts[n].Round
}

// Classic and mixed plans replay from their seed, validate, survive their
// JSON form, and keep each group to one protocol; a classic group's
// clients carry the settings A6.6 needs and the probes it gets never speak
// ConsumerGroupHeartbeat to it; over a few dozen seeds every classic
// draw is reached.
func TestClassicPlans(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 80; seed++ {
		for _, proto := range []Protocol{ProtocolClassic, ProtocolMixed} {
			p := New(seed, classicOptions(proto))
			if !reflect.DeepEqual(p, New(seed, classicOptions(proto))) {
				t.Fatalf("seed %d %s: two draws differ", seed, proto)
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("seed %d %s: %v", seed, proto, err)
			}
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var back Plan
			if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(p, back) {
				t.Fatalf("seed %d %s: the plan does not survive JSON (%v)", seed, proto, err)
			}
			kind := map[string]bool{}
			for i, c := range p.Clients {
				kind[c.Group] = c.IsClassic()
				if c.Classic == nil {
					if proto == ProtocolClassic {
						t.Fatalf("seed %d: a consumer client in a classic plan", seed)
					}
					continue
				}
				cc := c.Classic
				if cc.JoinGroupMaxVersion != 9 || cc.SessionTimeoutMs != 6000 || cc.RebalanceTimeoutMs < 3000 || cc.RebalanceTimeoutMs > 10000 || cc.RequestTimeoutMs <= 0 {
					t.Fatalf("seed %d: classic client %s: %+v", seed, c.Name, cc)
				}
				if c.NullOwned || c.RackID != "" || c.ServerAssignor != "" {
					t.Fatalf("seed %d: classic client %s keeps consumer-protocol settings", seed, c.Name)
				}
				for _, a := range c.Actions {
					if a.Kind == StaticLeave || a.Regex != "" {
						t.Fatalf("seed %d: classic client %s has action %+v", seed, c.Name, a)
					}
				}
				seen["static"] = seen["static"] || c.InstanceID != ""
				seen["dynamic"] = seen["dynamic"] || c.InstanceID == ""
				seen["shared instance"] = seen["shared instance"] || cc.SharedInstance
				seen["static restart"] = seen["static restart"] || c.InstanceID != "" && hasSuccessor(p, c)
				seen[fmt.Sprint("protocols ", cc.Protocols)] = true
				seen["omit empty assignments"] = seen["omit empty assignments"] || cc.OmitEmptyAssignments
				seen["retry sync"] = seen["retry sync"] || cc.RetrySync
				if b := New(seed, DefaultOptions()).Clients[i]; len(c.Actions) != len(b.Actions) && len(withoutMetadataChanges(c.Actions)) != len(b.Actions) {
					seen["fleet stop"] = true
				}
				for _, a := range c.Actions {
					if a.Kind != MetadataChange {
						continue
					}
					seen["metadata change"] = true
					// Every classic client of the group alive then sees
					// the change at the same round.
					for _, o := range p.Clients {
						if o.Group == c.Group && o.Classic != nil && o.Actions[0].Round < a.Round && !endsBy(o, a.Round) && !hasAction(o, a) {
							t.Fatalf("seed %d %s: %s sees a metadata change at round %d, %s of its group does not", seed, proto, c.Name, a.Round, o.Name)
						}
					}
				}
			}
			for _, pr := range p.Probes {
				if kind[pr.Group] && !classicSafeProbe(pr.Kind) {
					t.Fatalf("seed %d: probe %s to classic group %s", seed, pr.Kind, pr.Group)
				}
			}
			for _, f := range p.Faults {
				if p.Clients[f.Client].IsClassic() && f.Request == 2 {
					seen["first join: "+string(f.Kind)] = true
				}
			}
			if v, capped := p.MaxVersions[codec.JoinGroup]; (capped && v == 0) != p.LostJoinGrace || p.LostJoinGrace && proto != ProtocolClassic {
				t.Fatalf("seed %d %s: broker caps %v, LostJoinGrace %v: want the grace with a broker at JoinGroup v0, in classic plans only", seed, proto, p.MaxVersions, p.LostJoinGrace)
			}
			switch v, capped := p.MaxVersions[codec.JoinGroup]; {
			case !capped:
			case v == 0:
				seen["broker of Kafka 0.10.0"] = true
				if p.MaxVersions[codec.SyncGroup] != 0 || p.MaxVersions[codec.Heartbeat] != 0 || p.MaxVersions[codec.LeaveGroup] != 0 {
					t.Fatalf("seed %d: a broker of Kafka 0.10.0 with caps %v", seed, p.MaxVersions)
				}
			case v == 3:
				t.Fatalf("seed %d %s: a broker before KIP-394 outside the control", seed, proto)
			case v == 4:
				seen["broker of Kafka 2.2"] = true
			}
			seen["initial delay"] = seen["initial delay"] || p.InitialRebalanceDelayMs > 0
			seen["restarts"] = seen["restarts"] || len(p.Restarts) > 0 && p.HasClassic()
			seen["admin removal"] = seen["admin removal"] || len(p.Admin) > 0 && p.HasClassic()
			if proto == ProtocolMixed {
				n := 0
				for _, k := range kind {
					if k {
						n++
					}
				}
				seen["mixed: both kinds"] = seen["mixed: both kinds"] || n > 0 && n < len(kind)
			}
		}
	}
	for _, w := range []string{"static", "dynamic", "shared instance", "static restart", "broker of Kafka 2.2", "broker of Kafka 0.10.0", "initial delay", "restarts",
		"admin removal", "mixed: both kinds", "first join: lost-response", "first join: delay-request", "first join: duplicate", "first join: lost-request",
		"protocols []", "protocols [range uniform]", "protocols [uniform range]", "protocols [failover uniform]", "omit empty assignments", "retry sync", "metadata change", "fleet stop"} {
		if !seen[w] {
			t.Errorf("80 classic and mixed plans never drew %q", w)
		}
	}
}

// hasAction reports whether c has action a.
func hasAction(c ClientPlan, a Action) bool {
	for _, b := range c.Actions {
		if reflect.DeepEqual(a, b) {
			return true
		}
	}
	return false
}

// The KIP-394 control: every JoinGroup at v3, by the clients' cap or by a
// broker from before KIP-394 that today's clients downgrade to, every
// client dynamic (a static member needs v5).
func TestClassicControlPlans(t *testing.T) {
	o := classicOptions(ProtocolClassic)
	o.JoinGroupVersion = 3
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 30; seed++ {
		p := New(seed, o)
		byBroker := p.MaxVersions[codec.JoinGroup] == 3
		seen[fmt.Sprint("by broker ", byBroker)] = true
		if p.LostJoinGrace {
			t.Fatalf("seed %d: a control plan excuses KIP-394's ghosts (LostJoinGrace)", seed)
		}
		for _, c := range p.Clients {
			if c.Classic == nil || c.InstanceID != "" || byBroker != (c.Classic.JoinGroupMaxVersion == 9) || !byBroker && c.Classic.JoinGroupMaxVersion != 3 {
				t.Fatalf("seed %d: control client %+v (broker caps %v)", seed, c, p.MaxVersions)
			}
		}
	}
	if !seen["by broker true"] || !seen["by broker false"] {
		t.Errorf("30 control plans: %v; want both the clients' cap and the broker's", seen)
	}
}

// A classic plan shrinks like any: to the one client and the one fault a
// failure needs, its classic settings intact.
func TestShrinkClassicPlan(t *testing.T) {
	var p Plan
	var target Fault
	for seed := uint64(1); ; seed++ {
		p = New(seed, classicOptions(ProtocolClassic))
		found := false
		for _, f := range p.Faults {
			if f.Kind == LostResponse && f.Request == 2 && len(p.Clients) > 3 {
				target, found = f, true
				break
			}
		}
		if found {
			break
		}
	}
	name := p.Clients[target.Client].Name
	settings := *p.Clients[target.Client].Classic
	fails := func(q Plan) bool {
		for _, f := range q.Faults {
			if f.Kind == LostResponse && f.Request == 2 && q.Clients[f.Client].Name == name {
				return true
			}
		}
		return false
	}
	small := Shrink(p, fails, 500)
	if len(small.Clients) != 1 || len(small.Faults) != 1 || small.Clients[0].Name != name {
		t.Fatalf("shrunk to %d clients and %d faults (%s), want the one client and its lost first join answer", len(small.Clients), len(small.Faults), small.String())
	}
	if got := small.Clients[0].Classic; got == nil || !reflect.DeepEqual(*got, settings) {
		t.Fatalf("the shrunk client's classic settings %+v, want %+v", got, settings)
	}
	if err := small.Validate(); err != nil {
		t.Fatal(err)
	}
	// The original plan is untouched by shrinking.
	if !reflect.DeepEqual(*p.Clients[target.Client].Classic, settings) {
		t.Fatal("shrinking changed the plan it started from")
	}
}

// A plan whose group mixes the protocols, or a classic client with
// impossible settings, is refused.
func TestValidateClassic(t *testing.T) {
	good := New(3, classicOptions(ProtocolClassic))
	for _, c := range []struct {
		name string
		edit func(p *Plan)
	}{
		{"a group of both protocols", func(p *Plan) { p.Clients[0].Classic = nil }},
		{"JoinGroup v10", func(p *Plan) { p.Clients[0].Classic.JoinGroupMaxVersion = 10 }},
		{"no session timeout", func(p *Plan) { p.Clients[0].Classic.SessionTimeoutMs = 0 }},
		{"a negative initial delay", func(p *Plan) { p.InitialRebalanceDelayMs = -1 }},
	} {
		q := clonePlan(good)
		c.edit(&q)
		if err := q.Validate(); err == nil {
			t.Errorf("%s: validated", c.name)
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(New(3, DefaultOptions())); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("classic")) || bytes.Contains(buf.Bytes(), []byte("initialRebalanceDelayMs")) {
		t.Error("a consumer-protocol plan's JSON names classic settings")
	}
}

func TestParseProtocol(t *testing.T) {
	for _, s := range []string{"consumer", "classic", "mixed"} {
		if p, err := ParseProtocol(s); err != nil || string(p) != s {
			t.Errorf("ParseProtocol(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := ParseProtocol("kafka"); err == nil {
		t.Error("ParseProtocol accepted kafka")
	}
}
