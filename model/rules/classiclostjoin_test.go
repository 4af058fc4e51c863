package rules

import "testing"

// Under Observation.LostJoinGrace a member made for a JoinGroup v0-v3
// whose answer its live process never got (Process.Lost) is judged as a
// member nobody holds: no ghost within a session timeout (and the slack)
// of its join's completion, a ghost past it, and never one of its
// process's members; a process's waiting members of JoinGroups v0-v3 with
// MemberId "" count as one, and only when it accounts for no other.
// Without it (the KIP-394 control) the lost member is a ghost at once and
// its process's, and every unnamed waiting member counts.
func TestClassicLostJoinGrace(t *testing.T) {
	const g, session, joined = "g", 6000, 1000
	member := func(id, waiting string) MemberSnapshot {
		return MemberSnapshot{MemberID: id, Classic: &ClassicMember{SessionTimeoutMs: session, Waiting: waiting}}
	}
	for _, tc := range []struct {
		name      string
		grace     bool
		now       int64
		members   []MemberSnapshot
		process   Process
		wantGhost bool
		wantOwn   int
	}{
		{"control: a lost member is a ghost at once", false, joined + 100,
			[]MemberSnapshot{member("own", ""), member("lost", "")},
			Process{MemberID: "own", Lost: []string{"lost"}, AllIDs: []string{"own", "lost"}}, true, 2},
		{"grace: a lost member within its session", true, joined + 100,
			[]MemberSnapshot{member("own", ""), member("lost", "")},
			Process{MemberID: "own", Lost: []string{"lost"}, AllIDs: []string{"own", "lost"}}, false, 1},
		{"grace: a lost member past its session", true, joined + session + 1,
			[]MemberSnapshot{member("own", ""), member("lost", "")},
			Process{MemberID: "own", Lost: []string{"lost"}, AllIDs: []string{"own", "lost"}}, true, 1},
		{"control: two unnamed waiting members", false, joined + 100,
			[]MemberSnapshot{member("u1", WaitingJoin), member("u2", WaitingJoin)},
			Process{UnnamedJoins: 2}, false, 2},
		{"grace: two unnamed waiting members count as one", true, joined + 100,
			[]MemberSnapshot{member("u1", WaitingJoin), member("u2", WaitingJoin)},
			Process{UnnamedJoins: 2}, false, 1},
		{"grace: an unnamed waiting member beside one in flight", true, joined + 100,
			[]MemberSnapshot{member("told", ""), member("u1", WaitingJoin)},
			Process{InFlight: []string{"told"}, AllIDs: []string{"told"}, UnnamedJoins: 1}, false, 1},
		{"control: an unnamed waiting member beside one in flight", false, joined + 100,
			[]MemberSnapshot{member("told", ""), member("u1", WaitingJoin)},
			Process{InFlight: []string{"told"}, AllIDs: []string{"told"}, UnnamedJoins: 1}, false, 2},
	} {
		l := &ClassicLedger{}
		for _, m := range tc.members {
			if m.Classic.Waiting == "" {
				l.Joined(g, m.MemberID, joined, session, false, []string{"range"})
			} else {
				l.Wait(g, m.MemberID, 1)
			}
		}
		p := tc.process
		p.Name, p.GroupID, p.Live, p.Classic = "c0", g, true, true
		grp := GroupSnapshot{GroupID: g, Kind: KindClassic, Members: tc.members,
			Classic: &ClassicGroup{State: ClassicCompletingRebalance, Generation: 1}}
		o := Observation{Now: tc.now, Groups: []GroupSnapshot{grp}, Processes: []Process{p}, Classic: l, LostJoinGrace: tc.grace}
		ghost := false
		for _, m := range tc.members {
			if m.MemberID == "lost" && classicGhost(o, l, g, ClassicCompletingRebalance, m) {
				ghost = true
			}
		}
		if ghost != tc.wantGhost {
			t.Errorf("%s: lost member a ghost %v, want %v", tc.name, ghost, tc.wantGhost)
		}
		if got := classicMembersOf(o, &o.Processes[0], &o.Groups[0], nil); got != tc.wantOwn {
			t.Errorf("%s: the process accounts for %d members, want %d", tc.name, got, tc.wantOwn)
		}
		if err := OneMemberPerProcess(o); (err != nil) != (tc.wantOwn > 1) {
			t.Errorf("%s: OneMemberPerProcess: %v, want a violation %v", tc.name, err, tc.wantOwn > 1)
		}
	}
}
