package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/model"
)

// form's clients answer a coordinator that no longer knows their member
// (removed, as a session or rebalance timeout that ran out on a loaded
// machine removes it) as Kafka's consumer does: UNKNOWN_MEMBER_ID, and
// the member joins again under a new id, so the setup settles. A member
// whose id the case judges (keepID) does not: form then fails, saying
// the coordinator did not know it.
func TestFormStartsOverAForgottenMember(t *testing.T) {
	t.Parallel()
	coord := impl.New(impl.Config{
		Topics:           []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 3}},
		SessionTimeoutMs: 45000, HeartbeatIntervalMs: 5000,
		ClassicMinSessionTimeoutMs: 100, ClassicMaxSessionTimeoutMs: 600000, InitialRebalanceDelayMs: 50, NewMemberJoinTimeoutMs: 300000,
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	peer := Peer{Bootstrap: []string{addr}, Topic: "alpha", Timeout: 5 * time.Second, ClassicSessionTimeout: 2 * time.Second}
	for _, tc := range []struct {
		name   string
		keepID bool
		want   Status
		saying string
	}{
		{"a setup member starts over", false, Pass, "joined again as"},
		{"a member whose id is judged gives up", true, Fail, "UNKNOWN_MEMBER_ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := Case{Name: "X/form-starts-over", Rule: "test", Source: "Kafka 2.2", run: func(p *probe) verdict {
				ms := p.stable(p.id("g"), 2)
				gone := ms[0]
				stale := gone.id
				// The other member's connection removes it, as a
				// timer that ran out would.
				r := ms[1].c.leaveGroup(p.lv(), gone.group, codec.LeaveGroupMember{MemberId: stale})
				if e := leaveCode(p.lv(), r); e != codec.None {
					return fail("the removal: "+lgString(r), "NONE")
				}
				gone.keepID = tc.keepID
				p.form(ms...)
				return want(gone.id != stale && gone.id != "", "joined again as "+short(gone.id)+" (was "+short(stale)+")", "a new member id")
			}}
			rep, err := Run(peer, []Case{c}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Results[0]
			if r.Status != tc.want || !strings.Contains(r.Observed, tc.saying) {
				t.Errorf("%s %q; want %s saying %q", r.Status, r.Observed, tc.want, tc.saying)
			}
		})
	}
}
