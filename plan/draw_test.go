package plan

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// plainOptions are DefaultOptions without the draws that broaden plans
// (generate's last ones).
func plainOptions() Options {
	o := DefaultOptions()
	o.StaticCrashes, o.Resubscribes, o.OldClients, o.NullOwned, o.LeaveGroups = false, false, false, false, false
	o.Caps, o.RefusalProbes, o.OffGrid, o.ReuseConnIDs, o.RareInputs, o.Edges = false, false, false, false, false, false
	return o
}

// The broadening draws come after everything else: a seed gives the plan
// it gave without them, plus them.
func TestBroadeningKeepsTheSeedsPlans(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		old, cur := New(seed, plainOptions()), New(seed, DefaultOptions())
		if !reflect.DeepEqual(old.Faults, cur.Faults) || !reflect.DeepEqual(old.Restarts, cur.Restarts) || len(old.Clients) != len(cur.Clients) {
			t.Fatalf("seed %d: faults, restarts or clients changed", seed)
		}
		if !prefix(old.Probes, cur.Probes) || !prefix(old.Admin, cur.Admin) {
			t.Fatalf("seed %d: the probes or removals drawn before changed", seed)
		}
		for i, c := range cur.Clients {
			o := old.Clients[i]
			var acts []Action
			for _, a := range c.Actions {
				if a.Kind != Resubscribe && a.Kind != RenameClient {
					acts = append(acts, a)
				}
			}
			if n := len(acts); n > 0 && acts[n-1].Kind == Crash && o.Actions[n-1].Kind == Close {
				acts[n-1].Kind = Close // a static restart made a crash and a redeploy
			}
			c.Actions, c.ClientIDEvery, c.NullOwned, c.RackID, c.ServerAssignor = acts, false, false, "", ""
			if !reflect.DeepEqual(o, c) {
				t.Fatalf("seed %d client %d:\nwithout %+v\nwith    %+v", seed, i, o, c)
			}
		}
	}
}

// prefix reports whether a is the start of b.
func prefix[T any](a, b []T) bool {
	return len(a) <= len(b) && (len(a) == 0 || reflect.DeepEqual(a, b[:len(a)]))
}

// Over a few dozen default plans, every feature the issue names is drawn:
// each LeaveGroup name and version (and the downgrade), each probe kind,
// caps, resubscriptions by names and by regex, old-style and renamed
// clients, null owned partitions, static crashes, off-grid timeouts and
// reused connection ids; and every plan validates.
func TestPlansReachEveryFeature(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 80; seed++ {
		p := New(seed, DefaultOptions())
		if err := p.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, a := range p.Admin {
			for _, e := range a.Entries {
				seen["member "+string(e.Member)] = true
				seen["instance "+string(e.Instance)] = true
			}
			if a.Version != nil {
				seen[fmt.Sprintf("LeaveGroup v%d", *a.Version)] = true
			} else if len(a.Entries) > 0 {
				seen["LeaveGroup negotiated"] = true
			}
		}
		for _, pr := range p.Probes {
			seen["probe "+string(pr.Kind)] = true
		}
		for k, v := range p.MaxVersions {
			seen[fmt.Sprintf("cap %v v%d", k, min(v, 1))] = true
			if k == codec.LeaveGroup && v >= 3 {
				seen[fmt.Sprintf("cap %v v%d", k, v)] = true
			}
		}
		seen["group size cap"] = seen["group size cap"] || p.MaxGroupSize > 0
		seen["reuse"] = seen["reuse"] || p.ReuseConnIDs
		seen["off grid"] = seen["off grid"] || p.SessionTimeoutMs%p.RoundMs != 0 && int64(p.RebalanceTimeoutMs)%p.RoundMs != 0 && p.SubRoundMs > 0
		for _, c := range p.Clients {
			seen["old client"] = seen["old client"] || c.ClientIDEvery
			seen["null owned"] = seen["null owned"] || c.NullOwned
			for _, a := range c.Actions {
				switch {
				case a.Kind == Resubscribe && a.Regex != "":
					seen["resubscribe regex"] = true
				case a.Kind == Resubscribe:
					seen["resubscribe names"] = true
				case a.Kind == RenameClient:
					seen["rename"] = true
				case a.Kind == Crash && c.InstanceID != "" && hasSuccessor(p, c):
					seen["static crash"] = true
				}
			}
		}
	}
	want := []string{"member ", "member own", "member other", "member unknown", "instance ", "instance own", "instance other", "instance unknown",
		"LeaveGroup negotiated", "group size cap", "reuse", "off grid", "old client", "null owned", "resubscribe regex", "resubscribe names", "rename", "static crash",
		fmt.Sprintf("cap %v v0", codec.LeaveGroup), fmt.Sprintf("cap %v v1", codec.LeaveGroup), fmt.Sprintf("cap %v v0", codec.GetTelemetrySubscriptions),
		fmt.Sprintf("cap %v v0", codec.ConsumerGroupDescribe), fmt.Sprintf("cap %v v3", codec.LeaveGroup), fmt.Sprintf("cap %v v4", codec.LeaveGroup)}
	for v := 0; v <= 5; v++ {
		want = append(want, fmt.Sprintf("LeaveGroup v%d", v))
	}
	for _, k := range ProbeKinds() {
		want = append(want, "probe "+string(k))
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("80 default plans never drew %q", w)
		}
	}
}

// hasSuccessor reports whether a later client of p takes over c's instance.
func hasSuccessor(p Plan, c ClientPlan) bool {
	for _, o := range p.Clients {
		if o.Name != c.Name && o.InstanceID == c.InstanceID && o.Group == c.Group {
			return true
		}
	}
	return false
}
