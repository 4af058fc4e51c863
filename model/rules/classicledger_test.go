package rules

import "testing"

// A leave the coordinator answered ends a classic member's grace at once,
// unless a coordinator restart came after it (B8.14 brings the member back
// from the group's record): a leave answered at the restart's very time may
// have come first (the timers fired up to that time answered it), so it
// ends nothing.
func TestClassicGraceAfterALeave(t *testing.T) {
	const g, id, session = "g", "m", 6000
	m := MemberSnapshot{MemberID: id, Classic: &ClassicMember{SessionTimeoutMs: session}}
	for _, tc := range []struct {
		name            string
		leftAt, restart int64
		now             int64
		want            int64
	}{
		{"leave, no restart", 1000, -1, 1500, 1000},
		{"leave before a restart", 1000, 2000, 2500, 2000 + session},
		{"leave at a restart's time", 2000, 2000, 2500, 2000 + session},
		{"leave after a restart", 2100, 2000, 2500, 2100},
	} {
		var l ClassicLedger
		if tc.restart >= 0 {
			l.Restarted(tc.restart)
		}
		l.Joined(g, id, 0, session, false, []string{"range"})
		l.Left(g, id, tc.leftAt)
		if got := l.graceUntil(g, m, tc.now); got != tc.want {
			t.Errorf("%s: grace until %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A join phase a DescribeGroups observer saw over (JoinPhaseSeenOver)
// starts a member's grace again from then, as a completion it saw answered
// does, whichever came later; it does not end A7.4's grace, which only a
// completion the observer saw answered after the upgrade ends.
func TestClassicGraceFromAJoinPhaseSeenOver(t *testing.T) {
	const g, id, session = "g", "m", 6000
	m := MemberSnapshot{MemberID: id, Classic: &ClassicMember{SessionTimeoutMs: session}}
	for _, tc := range []struct {
		name                string
		touched, seen, want int64
	}{
		{"none seen", 1000, -1, 1000 + session},
		{"seen after its last request", 1000, 6400, 6400 + session},
		{"seen before its last request", 7000, 6400, 7000 + session},
	} {
		var l ClassicLedger
		l.Joined(g, id, tc.touched, session, false, []string{"range"})
		if tc.seen >= 0 {
			l.JoinPhaseSeenOver(g, tc.seen)
		}
		if got := l.graceUntil(g, m, 20000); got != tc.want {
			t.Errorf("%s: grace until %d, want %d", tc.name, got, tc.want)
		}
	}
	var l ClassicLedger
	l.Joined(g, id, 1000, session, false, []string{"range"})
	l.UpgradeAnswered(g, id, 2000)
	l.JoinPhaseSeenOver(g, 3000)
	if !l.upgradeGrace(g, m, ClassicPreparingRebalance, 3500) {
		t.Error("a join phase seen over ended A7.4's grace")
	}
}

// The protocols a classic member listed are known until a coordinator
// restart, which reloads the member with its group's selected protocol
// alone (B8.14): then unknown until it joins again, so that
// StaticRestartKeepsAssignment allows a static restart with the same list
// to rebalance (the selected protocol may change).
func TestClassicProtocolsForgottenAtARestart(t *testing.T) {
	const g, id = "g", "m"
	for _, tc := range []struct {
		name    string
		restart bool
		rejoin  bool
		want    string
	}{
		{"joined", false, false, "failover,uniform"},
		{"a restart since", true, false, ""},
		{"joined again after a restart", true, true, "range,uniform"},
	} {
		var l ClassicLedger
		l.Joined(g, id, 0, 6000, true, []string{"failover", "uniform"})
		if tc.restart {
			l.Restarted(1000)
		}
		if tc.rejoin {
			l.Joined(g, id, 2000, 6000, true, []string{"range", "uniform"})
		}
		if got := l.Protocols(g, id); got != tc.want {
			t.Errorf("%s: protocols %q, want %q", tc.name, got, tc.want)
		}
	}
}
