package plan

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/model"
)

// Every migration plan validates, switches processes to the other
// protocol (a new process of the same group and instance id joining after
// its predecessor ended), and never has two processes of one instance
// live at once.
func TestMigrationPlans(t *testing.T) {
	for _, tc := range []struct {
		protocol  Protocol
		toClassic bool
	}{{ProtocolUpgrade, false}, {ProtocolRollback, true}} {
		t.Run(string(tc.protocol), func(t *testing.T) {
			o := DefaultOptions()
			o.Protocol, o.JoinGroupVersion = tc.protocol, 9
			switched := 0
			for seed := uint64(1); seed <= 200; seed++ {
				p := New(seed, o)
				if err := p.Validate(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if p.MigrationPolicy != MigrationBidirectional || p.ModelConfig().MigrationPolicy != model.MigrationBidirectional {
					t.Fatalf("seed %d: migration policy %q", seed, p.MigrationPolicy)
				}
				for i := range p.Clients {
					c := &p.Clients[i]
					if c.IsClassic() == tc.toClassic {
						continue // a process of the starting protocol
					}
					switched++
					if c.InstanceID == "" {
						continue
					}
					start := c.Actions[0].Round
					for j := range p.Clients {
						o := &p.Clients[j]
						if j == i || o.InstanceID != c.InstanceID || o.Group != c.Group {
							continue
						}
						if end := endRound(o.Actions, p.Rounds); o.Actions[0].Round < start && end >= start {
							t.Fatalf("seed %d: %s (instance %s) joins at %d while %s lives until %d", seed, c.Name, c.InstanceID, start, o.Name, end)
						}
					}
				}
			}
			if switched < 200 {
				t.Fatalf("%d processes switched protocol in 200 plans; want most plans to switch some", switched)
			}
		})
	}
}

// endRound is the round a process with acts ends at (rounds if it lives
// to the end).
func endRound(acts []Action, rounds int) int {
	for _, a := range acts {
		if a.Kind == Close || a.Kind == Crash {
			return a.Round
		}
	}
	return rounds
}
