package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// A recording replays by being judged again: it passes while the verdict
// and every outcome it stores still come out, and fails, naming the
// client and rule, when one does not.
func TestReplayClientRecording(t *testing.T) {
	hdr := func(corr int32) codec.RequestHeader {
		return codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: corr, ClientId: codec.Str("c")}
	}
	reqs := []rules.ClientRequest{
		{Conn: 1, Broker: "b", Seq: 0, HeaderVersion: 2, Header: hdr(1), Request: &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1"}},
		{Conn: 1, Broker: "b", Seq: 1, HeaderVersion: 2, Header: hdr(2), Request: &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m2"}},
	}
	write := func(e history.Expect) string {
		path := filepath.Join(t.TempDir(), "rec.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := history.WriteClientFile(f, history.ClientFileHeader{Target: "b", Expect: e}, reqs); err != nil {
			t.Fatal(err)
		}
		return path
	}
	want := history.ClientExpect(rules.CheckClients(reqs))
	if want.Verdict != history.Illegal || want.Rule != string(rules.RuleStableMemberID) {
		t.Fatalf("the sample checks to %+v", want)
	}
	rr, err := ReplayFile(write(want), "impl")
	if err != nil || !rr.Pass || len(rr.Clients) != 1 {
		t.Fatalf("replay: %v, %+v", err, rr)
	}
	want.Clients["clientId c"][string(rules.RuleNoZeroUUIDs)] = string(rules.OutcomeViolated)
	rr, err = ReplayFile(write(want), "")
	if err != nil || rr.Pass || !strings.Contains(rr.Detail, "client clientId c, rule NoZeroUUIDs") {
		t.Fatalf("a changed outcome: %v, %+v", err, rr)
	}
	rr, err = ReplayFile(write(history.Expect{Verdict: history.Ok}), "")
	if err != nil || rr.Pass {
		t.Fatalf("a changed verdict passed: %v, %+v", err, rr)
	}
}
