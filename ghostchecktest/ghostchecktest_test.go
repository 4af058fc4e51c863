package ghostchecktest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/plan"
)

// correct is the model behind a plain Target (not model-exact, cannot
// restart); leaky acknowledges leaves without removing the member.
func correct(cfg Config) Target {
	m := Reference(cfg)
	return Funcs{HandleFunc: m.Handle, DisconnectFunc: m.Disconnect, AdvanceFunc: m.Advance}
}

func leaky(cfg Config) Target {
	m := Reference(cfg)
	return Funcs{
		HandleFunc: func(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
			if r, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && r.MemberEpoch == -1 && r.MemberId != "" {
				return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(r.MemberId), MemberEpoch: -1}, nil
			}
			return m.Handle(conn, h, req)
		},
		DisconnectFunc: m.Disconnect, AdvanceFunc: m.Advance,
	}
}

// recorder keeps what a test reports instead of failing or skipping it.
type recorder struct {
	testing.TB
	mu                  sync.Mutex
	errors, logs, skips []string
}

func (r *recorder) add(list *[]string, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*list = append(*list, s)
}

func (r *recorder) Errorf(format string, args ...any) { r.add(&r.errors, fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.add(&r.errors, fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any)   { r.add(&r.logs, fmt.Sprintf(format, args...)) }
func (r *recorder) Log(args ...any)                   { r.add(&r.logs, fmt.Sprint(args...)) }

func (r *recorder) Skipf(format string, args ...any) {
	r.add(&r.skips, fmt.Sprintf(format, args...))
	r.TB.SkipNow()
}

func TestRunPattern(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"TestX", "^TestX$"},
		{"TestX/seed_3", "^TestX$/^seed_3$"},
		{"TestX/a.b(c)", `^TestX$/^a\.b\(c\)$`},
	} {
		if got := runPattern(tc.name); got != tc.want {
			t.Errorf("runPattern(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFuncPackage(t *testing.T) {
	for _, tc := range []struct{ fn, want string }{
		{"example.com/m/p.TestX", "example.com/m/p"},
		{"example.com/m/p_test.TestX.func1", "example.com/m/p"},
		{"example.com/m/p.(*T).Method", "example.com/m/p"},
		{"main.TestX", "."},
		{"p.TestX", "p"},
		{"nodot", ""},
	} {
		if got := funcPackage(tc.fn); got != tc.want {
			t.Errorf("funcPackage(%q) = %q, want %q", tc.fn, got, tc.want)
		}
	}
	if got := callerPackage(); got != "github.com/ghostcheck/ghostcheck/ghostchecktest" {
		t.Errorf("callerPackage() = %q", got)
	}
}

// The replay command a failure prints works: the test binary, given
// -ghostcheck.replay, runs the history again against the test's target,
// fails while the bug is there (saying it reproduced), and passes once it
// is fixed. A history of another test is skipped; one without operations
// is refused.
func TestReplayFromTheTestBinary(t *testing.T) {
	switch os.Getenv("GHOSTCHECKTEST_CHILD") {
	case "leaky":
		Run(t, leaky, Options{Seeds: 20})
		return
	case "fixed":
		Run(t, correct, Options{Seeds: 20})
		return
	}
	dir := t.TempDir()
	rec := &recorder{TB: t}
	out := run(rec, leaky, Options{Seeds: 20}, settings{out: dir})
	if out.Failure == nil || out.Failure.Temporary || filepath.Dir(out.Failure.History) != dir {
		t.Fatalf("the failure's files are not kept in -ghostcheck.out: %+v", out.Failure)
	}
	file := out.Failure.History
	want := "go test github.com/ghostcheck/ghostcheck/ghostchecktest -run '^TestReplayFromTheTestBinary$' -ghostcheck.replay=" + file
	if out.Failure.Replay != want || !strings.Contains(rec.errors[0], "replay:   "+want) {
		t.Fatalf("replay command %q, want %q", out.Failure.Replay, want)
	}
	for _, tc := range []struct {
		mode, want string
		fails      bool
	}{
		{"leaky", "(reproduced): Illegal NoGhosts", true},
		{"fixed", "now checks Ok at the observable level (it recorded Illegal NoGhosts", false},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReplayFromTheTestBinary$", "-test.v", "-ghostcheck.replay="+file)
		cmd.Env = append(os.Environ(), "GHOSTCHECKTEST_CHILD="+tc.mode)
		b, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.fails || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: failed %v (want %v), output lacks %q:\n%s", tc.mode, failed, tc.fails, tc.want, b)
		}
	}
	var other *recorder
	t.Run("another test", func(st *testing.T) {
		other = &recorder{TB: st}
		run(other, leaky, Options{}, settings{replay: file})
	})
	if len(other.skips) != 1 || !strings.Contains(other.skips[0], "not of this test") {
		t.Errorf("another test's replay was not skipped: %q", other.skips)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	src, _ := os.ReadFile(file)
	header, _, _ := strings.Cut(string(src), "\n")
	if err := os.WriteFile(empty, []byte(header+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readHistory(empty); err == nil || !strings.Contains(err.Error(), "no operations") {
		t.Errorf("a history without operations: %v", err)
	}
}

// With Rapid, a failure is reported once, with the history and the replay
// command, and without rapid's log of every draw.
// Both runs start from a fixed rapid seed (rapid draws one from the clock
// otherwise), so the test judges the same plans every time.
func TestRapidIsQuiet(t *testing.T) {
	for name, value := range map[string]string{
		"rapid.nofailfile": "true", // no fail file in this package's testdata
		"rapid.seed":       "1",
	} {
		f := flag.Lookup(name)
		old := f.Value.String()
		if err := f.Value.Set(value); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
	rec := &recorder{TB: t}
	out := run(rec, leaky, Options{Rapid: true, Shrink: 20}, settings{out: t.TempDir()})
	if out.Failure == nil || out.Failure.Rule != "NoGhosts" || len(rec.errors) != 1 {
		t.Fatalf("want one NoGhosts failure: %+v %q", out.Failure, rec.errors)
	}
	if !strings.Contains(rec.errors[0], "drawn by rapid") || !strings.Contains(rec.errors[0], "-ghostcheck.replay=") {
		t.Errorf("the failure:\n%s", rec.errors[0])
	}
	for _, l := range rec.logs {
		if strings.Contains(l, "[rapid] draw") {
			t.Fatalf("rapid's draws were logged: %q", l)
		}
	}
	t.Logf("%d log lines; the failure:\n%s", len(rec.logs), rec.errors[0])
	ok := run(&recorder{TB: t}, correct, Options{Rapid: true}, settings{})
	if ok.Failure != nil || ok.Plans == 0 {
		t.Fatalf("a correct target under rapid: %+v", ok)
	}
}

// A target that panics fails the test, naming the plan and the panic, in
// either mode; rapid does not spend its shrinking time on it, nor print
// its draws.
func TestPanicIsAFailure(t *testing.T) {
	panicky := func(Config) Target {
		return Funcs{HandleFunc: func(Conn, *codec.RequestHeader, codec.Message) (codec.Message, error) {
			panic("mycoord: nil map")
		}}
	}
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{}, "seed 1 (of 1-100): the target panicked: mycoord: nil map"},
		{Options{Rapid: true}, "plan 1 drawn by rapid (seed "},
	} {
		rec := &recorder{TB: t}
		start := time.Now()
		run(rec, panicky, tc.opts, settings{})
		if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], tc.want) || !strings.Contains(rec.errors[0], "mycoord: nil map") {
			t.Fatalf("rapid %v: %q", tc.opts.Rapid, rec.errors)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("rapid %v: %v to report a panic", tc.opts.Rapid, d)
		}
		for _, l := range rec.logs {
			if strings.Contains(l, "[rapid] draw") {
				t.Fatalf("rapid's draws were logged: %q", l)
			}
		}
	}
}

// The options' shape reaches the plans: the clients, groups, rounds,
// faults and static share a test asks for, and the default plan where
// it asks for nothing.
func TestOptionsShapeThePlans(t *testing.T) {
	shaped := func(o Options) plan.Plan {
		p := plan.DefaultOptions()
		o.shape(&p)
		return plan.New(7, p)
	}
	def := plan.New(7, plan.DefaultOptions())
	if got := shaped(Options{}); got.String() != def.String() {
		t.Fatalf("the zero Options changed the default plan:\n%s\nwant\n%s", got.String(), def.String())
	}
	p := shaped(Options{Clients: 3, Groups: 1, Rounds: 12, Faults: -1, Static: 100})
	// A static restart is a new process under the same instance id, so
	// the clients asked for are the instances.
	groups, instances := map[string]bool{}, map[string]bool{}
	for _, c := range p.Clients {
		groups[c.Group], instances[c.InstanceID] = true, true
		if c.InstanceID == "" {
			t.Errorf("client %s is dynamic; Static 100 wants every client static", c.Name)
		}
	}
	if len(instances) != 3 || len(groups) != 1 || p.Rounds != 12 || len(p.Faults) != 0 {
		t.Errorf("got %d clients in %d groups over %d rounds with %d faults; want 3 in 1 over 12 with none",
			len(instances), len(groups), p.Rounds, len(p.Faults))
	}
	for _, c := range shaped(Options{Static: -1, Faults: 30}).Clients {
		if c.InstanceID != "" {
			t.Errorf("client %s is static; Static -1 wants none", c.Name)
		}
	}
	if n, d := len(shaped(Options{Faults: 30}).Faults), len(def.Faults); n <= d {
		t.Errorf("Faults 30 drew %d faults, the default 10 %% drew %d: want more", n, d)
	}
	if r := shaped(Options{Rounds: 3}).Rounds; r != 10 {
		t.Errorf("Rounds 3 gave %d rounds; want the floor of 10", r)
	}
}

// parkingCorrect is the model behind a target of a user's that holds
// classic requests (a Parker), neither model-exact nor able to restart.
type parkingCorrect struct {
	Funcs
	ref Target
}

func (p parkingCorrect) Released() []Release { return p.ref.(Parker).Released() }

func newParkingCorrect(cfg Config) Target {
	m := Reference(cfg)
	return parkingCorrect{Funcs{HandleFunc: m.Handle, DisconnectFunc: m.Disconnect, AdvanceFunc: m.Advance}, m}
}

// Options.Protocol runs classic and mixed groups against a user's
// coordinator: the reference passes exactly, and a correct coordinator
// that parks passes at the observable level.
func TestClassicProtocolAgainstAUsersTarget(t *testing.T) {
	for _, proto := range []string{"classic", "mixed"} {
		for _, tc := range []struct {
			name string
			nt   NewTarget
			lvl  Level
		}{{"reference", Reference, LevelExact}, {"parking", newParkingCorrect, LevelObservable}} {
			r := &recorder{TB: t}
			out := run(r, tc.nt, Options{Seeds: 8, Protocol: proto, Shrink: -1}, settings{out: t.TempDir()})
			if len(r.errors) > 0 || out.Failure != nil || out.Level != tc.lvl {
				t.Errorf("%s, %s: level %v, errors %q, failure %+v", proto, tc.name, out.Level, r.errors, out.Failure)
			}
		}
	}
	p := plan.DefaultOptions()
	(Options{Protocol: "classic"}).shape(&p)
	if p.Protocol != plan.ProtocolClassic || p.JoinGroupVersion != 9 {
		t.Errorf("Protocol classic shaped %+v", p)
	}
}
