package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ghostcheck/ghostcheck/explore"
	"github.com/ghostcheck/ghostcheck/explore/counterexample"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
)

// `ghostcheck explore`: the exhaustive search of package explore over a
// configuration given by flags, with a live progress line, a summary that
// says whether every reachable state (up to the depth bound) was explored
// or where the search stopped and why, the clauses the explored
// transitions applied, and the shortest trace of the first violation.

// exploreConfig is explore's flags.
type exploreConfig struct {
	cfg                               explore.Config
	clients, groups, static, v0       int
	nullOwned, regex                  bool
	faults, protocol, strategy, shard string
	mutant, memory, out               string
	json, processes                   bool
}

// exploreFiles are where a violation was written as a corpus history.
type exploreFiles struct {
	History, Page, Replay string
	// Unreproduced says why no file was written.
	Unreproduced string
}

func runExplore(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ec, code := parseExploreFlags(args, stderr)
	if code >= 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return exploreCtx(ctx, ec, stdout, stderr)
}

// exploreCtx runs the search; ctx ending (SIGINT) stops it as a time limit
// does, and the summary says where.
func exploreCtx(ctx context.Context, ec exploreConfig, stdout, stderr io.Writer) int {
	cfg := ec.cfg
	prog := newProgress(stderr)
	n := 0
	cfg.Progress = func(p explore.Progress) {
		// A live line on a terminal; otherwise a line every 10 s.
		if n++; prog.tty || n%10 == 0 {
			showProgress(prog, p.String())
		}
	}
	if !ec.json {
		fmt.Fprintf(stdout, "exploring: %s, %s\n", cfg.Describe(), workersSaid(cfg.Workers, ec.processes))
	}
	if ec.processes {
		cfg.StartWorker = exploreWorkerStarter(cfg.MemoryBytes, stderr)
	}
	restoreGC := explore.TuneGC(cfg.MemoryBytes) // the collector less often, within --memory
	r, err := explore.RunContext(ctx, cfg)
	restoreGC()
	prog.done()
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck explore:", err)
		return exitFailed
	}
	status := exploreStatus(r)
	var files *exploreFiles
	if r.Violation != nil {
		files = writeCounterexample(ec, r.Violation)
	}
	if ec.json {
		printExploreJSON(stdout, ec, r, status, files)
	} else {
		printExplore(stdout, ec, r, files)
	}
	return status
}

// workersSaid is how the search's workers run, in words.
func workersSaid(n int, processes bool) string {
	switch {
	case n == 1:
		return "1 worker"
	case processes:
		return fmt.Sprintf("%d worker processes", n)
	}
	return fmt.Sprintf("%d workers", n)
}

// writeCounterexample writes the violation as a corpus history, with
// run's story page, when a plan of the driver reproduces it
// (explore/counterexample).
func writeCounterexample(ec exploreConfig, v *explore.Violation) *exploreFiles {
	f, err := counterexample.Reproduce(ec.cfg, v)
	if err != nil {
		return &exploreFiles{Unreproduced: err.Error()}
	}
	name := "explore-" + strings.ToLower(v.Rule)
	if ec.mutant != "" {
		name = "explore-" + ec.mutant
	}
	arts, err := writeFailurePage(ec.out, name, f.Header, f.Run, f.Report)
	if err != nil {
		return &exploreFiles{Unreproduced: "writing it: " + err.Error()}
	}
	return &exploreFiles{History: arts.History, Page: arts.HTML, Replay: "ghostcheck replay " + arts.History}
}

// showProgress prints a progress line: over the last one on a terminal.
func showProgress(p *progress, line string) {
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// exploreStatus: 0 when every state asked for was explored (to the depth
// bound, or all of them) and nothing broke; 1 for a violation, or a
// search that stopped before it was done (memory, time, an interrupt):
// what it did not explore, it did not check.
func exploreStatus(r *explore.Result) int {
	if r.Violation == nil && (r.Complete || r.DepthBound) {
		return exitOK
	}
	return exitFailed
}

func parseExploreFlags(args []string, stderr io.Writer) (exploreConfig, int) {
	ec := exploreConfig{cfg: explore.Default()}
	d := ec.cfg
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&ec.protocol, "protocol", string(explore.Consumer), "group protocol of the clients: consumer (ConsumerGroupHeartbeat v0/v1), classic (JoinGroup, SyncGroup, Heartbeat) or mixed (the two in turn, the classic clients in groups of their own)")
	fs.IntVar(&ec.clients, "clients", len(d.Clients), "client slots, 1 to 4 (a slot runs one process after another: a crash or close ends one, the next join starts another)")
	fs.IntVar(&ec.groups, "groups", 1, "consumer groups, 1 or 2 (clients spread over them in turn)")
	static := 0
	for _, c := range d.Clients {
		if c.Instance != "" {
			static++
		}
	}
	fs.IntVar(&ec.static, "static", static, "how many of the clients (the first ones) are static members (KIP-345), each with its own instance id")
	fs.IntVar(&ec.v0, "v0", 0, "how many of the clients speak ConsumerGroupHeartbeat v0 (the coordinator makes their member ids)")
	fs.BoolVar(&ec.nullOwned, "null-owned", false, "clients send TopicPartitions null when their partitions did not change (as Java's consumer)")
	fs.BoolVar(&ec.regex, "regex", false, "KIP-1082 clients subscribe by regular expression")
	fs.IntVar(&ec.cfg.Ops, "ops", d.Ops, "operations (a join, a leave) per client, at moments of its choosing; each process also closes when it likes")
	fs.IntVar(&ec.cfg.Admin, "admin", 0, "admin LeaveGroups (by instance, by member, fenced) along a path")
	fs.StringVar(&ec.faults, "faults", d.Faults.String(), "faults to branch on: lost-request, lost-response, duplicate, delay, disconnect, crash, coordinator-restart, reorder; all; none")
	fs.IntVar(&ec.cfg.MaxFaults, "max-faults", d.MaxFaults, "faults along one path (reorder aside)")
	fs.IntVar(&ec.cfg.Depth, "depth", 0, "events along a path (0: no bound, until no new state is found)")
	fs.Func("partitions", fmt.Sprintf("partitions of the topic the clients subscribe to (default %d)", d.Partitions), func(s string) error {
		n, err := strconv.Atoi(s)
		ec.cfg.Partitions = int32(n)
		return err
	})
	fs.StringVar(&ec.mutant, "mutant", "", "plant one of impl's bugs, to watch the explorer catch it: "+strings.Join(implMutants(), ", "))
	fs.StringVar(&ec.strategy, "strategy", string(explore.BreadthFirst), "bfs (level by level, parallel) or iddfs (iterative deepening, one worker); both give a shortest trace")
	fs.IntVar(&ec.cfg.Workers, "workers", runtime.GOMAXPROCS(0), "workers expanding states at once (bfs)")
	fs.BoolVar(&ec.processes, "processes", false, "run the workers as processes of their own, each with a copy of the fingerprints and tree, rather than goroutines sharing one heap and collector")
	fs.StringVar(&ec.memory, "memory", "4GiB", "stop when the fingerprints and the search tree take more than this (e.g. 512MiB, 8GiB; 0: no cap)")
	fs.DurationVar(&ec.cfg.TimeLimit, "time", 0, "stop after this long (0: no limit)")
	fs.StringVar(&ec.shard, "shard", "", "i/n: explore shard i of n (0-based) of the search, for n jobs or machines")
	fs.StringVar(&ec.out, "out", "out", "directory for a violation's corpus history and story page (when a plan of run reproduces its trace)")
	fs.BoolVar(&ec.json, "json", false, "print the summary as JSON (schema ghostcheck/explore/v1, with the options used)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck explore [flags]")
		fmt.Fprintln(stderr, "Explores every reachable state of a small configuration of reference clients, the model and impl,")
		fmt.Fprintln(stderr, "breadth-first: every invariant on every state, impl equal to the model on every transition.")
		fmt.Fprintln(stderr, "Exit 0 when every state asked for was explored and nothing broke, 1 for a violation (with its")
		fmt.Fprintln(stderr, "shortest trace) or a search stopped before it was done, 2 on bad usage.")
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, args); code >= 0 {
		return ec, code
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return ec, exitUsage
	}
	return ec, validateExplore(&ec, stderr)
}

// validateExplore reads the flags' text into the configuration and
// refuses what explore.Run would.
func validateExplore(ec *exploreConfig, stderr io.Writer) int {
	var err error
	cfg := &ec.cfg
	if cfg.Protocol, err = explore.ParseProtocol(ec.protocol); err != nil {
		return usageErr(stderr, "explore", "--protocol: %v", err)
	}
	switch {
	case ec.clients < 1 || ec.clients > 4:
		return usageErr(stderr, "explore", "--clients %d: between 1 and 4", ec.clients)
	case ec.groups < 1 || ec.groups > 2:
		return usageErr(stderr, "explore", "--groups %d: 1 or 2", ec.groups)
	case ec.static < 0 || ec.static > ec.clients, ec.v0 < 0 || ec.v0 > ec.clients:
		return usageErr(stderr, "explore", "--static and --v0 count clients: between 0 and --clients")
	}
	cfg.Clients = explore.Clients(ec.clients, ec.groups, ec.static, ec.v0)
	for i := range cfg.Clients {
		cfg.Clients[i].NullOwned = ec.nullOwned
		cfg.Clients[i].Regex = ec.regex && cfg.Clients[i].HeartbeatVersion >= 1
	}
	if cfg.Faults, err = explore.ParseFaults(ec.faults); err != nil {
		return usageErr(stderr, "explore", "--faults: %v", err)
	}
	if ec.mutant != "" {
		m, err := impl.ParseMutant(ec.mutant)
		if err != nil {
			return usageErr(stderr, "explore", "--mutant: %v", err)
		}
		cfg.Mutants = impl.Mutants{}.With(m)
	}
	cfg.Strategy = explore.Strategy(ec.strategy)
	if cfg.Strategy == explore.IterativeDeepening && cfg.Workers > 1 {
		cfg.Workers = 1
	}
	if cfg.MemoryBytes, err = parseBytes(ec.memory); err != nil {
		return usageErr(stderr, "explore", "--memory %q: %v", ec.memory, err)
	}
	if ec.shard != "" {
		i, n, ok := strings.Cut(ec.shard, "/")
		var e1, e2 error
		cfg.Shard, e1 = strconv.Atoi(i)
		cfg.Shards, e2 = strconv.Atoi(n)
		if !ok || e1 != nil || e2 != nil || cfg.Shards < 1 || cfg.Shard < 0 || cfg.Shard >= cfg.Shards {
			return usageErr(stderr, "explore", "--shard %q: want i/n with 0 <= i < n", ec.shard)
		}
	}
	if err := explore.Validate(*cfg); err != nil {
		return usageErr(stderr, "explore", "%v", err)
	}
	return -1
}

// parseBytes reads a size: a number with an optional unit (B, KiB, MiB,
// GiB, TiB, or K, M, G, T for the same powers of 1024).
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mul    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mul = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mul
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 512MiB or 4GiB")
	}
	return int64(n * float64(mul)), nil
}

func implMutants() []string {
	var out []string
	for _, m := range impl.AllMutants() {
		out = append(out, m.Name)
	}
	return out
}

// printExplore prints the summary in words.
func printExplore(w io.Writer, ec exploreConfig, r *explore.Result, files *exploreFiles) {
	fmt.Fprintln(w, r.Summary())
	fmt.Fprintf(w, "  states %d, transitions %d, terminal states %d, deepest level %d\n", r.States, r.Transitions, r.Terminal, r.Depth)
	fmt.Fprintf(w, "  %.1f s (%.1f s of CPU): %.0f states/s, %.0f states per CPU second; %s kept (%.1f bytes per state)\n",
		r.Elapsed.Seconds(), r.CPU.Seconds(), perSecond(r.States, r.Elapsed), perSecond(r.States, r.CPU), byteSize(r.MemoryBytes), float64(r.MemoryBytes)/float64(max(r.States, 1)))
	if r.Shards > 1 {
		fmt.Fprintf(w, "  shard %d of %d, split at depth %d (the shards' states overlap above it)\n", r.Shard, r.Shards, r.ShardDepth)
	}
	if r.V0Ghosts > 0 {
		fmt.Fprintf(w, "  the ghost KIP-1082 removed, as expected of ConsumerGroupHeartbeat v0: %d states, first at depth %d, hold a member the coordinator made for a v0 join that no process holds; each is gone once its session passes (QuiescentMembership)\n",
			r.V0Ghosts, r.V0GhostDepth)
	}
	applied, all := clausesApplied(r.Clauses)
	fmt.Fprintf(w, "  clauses of docs/PROTOCOL.md applied: %d of %d", applied, len(all))
	var never []string
	for _, c := range all {
		if r.Clauses[c] == 0 {
			never = append(never, string(c))
		}
	}
	if len(never) > 0 && len(never) <= 40 {
		fmt.Fprintf(w, "; never: %s", strings.Join(never, " "))
	}
	fmt.Fprintln(w)
	if v := r.Violation; v != nil {
		fmt.Fprintf(w, "\n%s: %s\n", v.Rule, v.Detail)
		fmt.Fprintf(w, "shortest trace (%d events):\n", v.Depth)
		for _, l := range v.Trace {
			fmt.Fprintln(w, "  "+l)
		}
		fmt.Fprintf(w, "reproduce: ghostcheck explore %s\n", strings.Join(exploreArgs(ec), " "))
		switch {
		case files == nil:
		case files.Unreproduced != "":
			fmt.Fprintf(w, "no corpus history: %s (the command above reproduces it)\n", files.Unreproduced)
		default:
			fmt.Fprintf(w, "corpus history: %s\nstory page:     %s\nreplay:         %s\n", files.History, files.Page, files.Replay)
		}
	}
}

// clausesApplied counts the clauses hit, of all the model's.
func clausesApplied(hits model.ClauseHits) (int, []model.Clause) {
	var all []model.Clause
	n := 0
	for _, c := range model.Clauses() {
		all = append(all, c.ID)
		if hits[c.ID] > 0 {
			n++
		}
	}
	return n, all
}

// exploreArgs are the flags that give this search again (on one worker:
// the same trace).
func exploreArgs(ec exploreConfig) []string {
	cfg := ec.cfg
	args := []string{fmt.Sprintf("--clients %d", len(cfg.Clients))}
	if cfg.Protocol != explore.Consumer {
		args = append([]string{"--protocol " + string(cfg.Protocol)}, args...)
	}
	if ec.groups > 1 {
		args = append(args, fmt.Sprintf("--groups %d", ec.groups))
	}
	args = append(args, fmt.Sprintf("--static %d", ec.static))
	if ec.v0 > 0 {
		args = append(args, fmt.Sprintf("--v0 %d", ec.v0))
	}
	if ec.nullOwned {
		args = append(args, "--null-owned")
	}
	if ec.regex {
		args = append(args, "--regex")
	}
	args = append(args, fmt.Sprintf("--ops %d", cfg.Ops), "--faults "+cfg.Faults.String(), fmt.Sprintf("--max-faults %d", cfg.MaxFaults))
	if cfg.Admin > 0 {
		args = append(args, fmt.Sprintf("--admin %d", cfg.Admin))
	}
	if cfg.Depth > 0 {
		args = append(args, fmt.Sprintf("--depth %d", cfg.Depth))
	}
	if cfg.Partitions != explore.Default().Partitions {
		args = append(args, fmt.Sprintf("--partitions %d", cfg.Partitions))
	}
	if ec.mutant != "" {
		args = append(args, "--mutant "+ec.mutant)
	}
	if cfg.Strategy != explore.BreadthFirst {
		args = append(args, "--strategy "+string(cfg.Strategy))
	}
	return append(args, "--workers 1")
}

func perSecond(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// exploreJSON is --json's result (schema ghostcheck/explore/v1).
type exploreJSON struct {
	Schema     string            `json:"schema"`
	Options    map[string]any    `json:"options"`
	Config     string            `json:"config"`
	Summary    string            `json:"summary"`
	Result     exploreResultJSON `json:"result"`
	Violation  *exploreViolation `json:"violation,omitempty"`
	Clauses    exploreClauses    `json:"clauses"`
	ExitStatus int               `json:"exitStatus"`
}

type exploreResultJSON struct {
	Complete           bool     `json:"complete"`
	DepthBound         bool     `json:"depthBound"`
	Stopped            string   `json:"stopped,omitempty"`
	Depth              int      `json:"depth"`
	States             uint64   `json:"states"`
	Transitions        uint64   `json:"transitions"`
	Terminal           uint64   `json:"terminal"`
	V0Ghosts           uint64   `json:"v0Ghosts"`
	V0GhostDepth       int      `json:"v0GhostDepth"`
	Frontier           int      `json:"frontier"`
	Levels             []uint64 `json:"levels"`
	Seconds            float64  `json:"seconds"`
	CPUSeconds         float64  `json:"cpuSeconds"`
	StatesPerSecond    float64  `json:"statesPerSecond"`
	StatesPerCPUSecond float64  `json:"statesPerCpuSecond"`
	MemoryBytes        int64    `json:"memoryBytes"`
	Shard              int      `json:"shard"`
	Shards             int      `json:"shards"`
	ShardDepth         int      `json:"shardDepth"`
}

type exploreViolation struct {
	Rule      string   `json:"rule"`
	Detail    string   `json:"detail"`
	Depth     int      `json:"depth"`
	Trace     []string `json:"trace"`
	Reproduce string   `json:"reproduce"`
	// History, Page and Replay are the corpus file, its story page and
	// the replay command; Unreproduced says why there are none.
	History      string `json:"history,omitempty"`
	Page         string `json:"page,omitempty"`
	Replay       string `json:"replay,omitempty"`
	Unreproduced string `json:"unreproduced,omitempty"`
}

type exploreClauses struct {
	Applied int            `json:"applied"`
	Total   int            `json:"total"`
	Hits    map[string]int `json:"hits"`
}

func printExploreJSON(w io.Writer, ec exploreConfig, r *explore.Result, status int, files *exploreFiles) {
	cfg := ec.cfg
	v := exploreJSON{
		Schema: "ghostcheck/explore/v1",
		Options: map[string]any{"protocol": string(cfg.Protocol), "clients": len(cfg.Clients), "groups": ec.groups, "static": ec.static, "v0": ec.v0,
			"nullOwned": ec.nullOwned, "regex": ec.regex, "ops": cfg.Ops, "admin": cfg.Admin, "faults": cfg.Faults.String(), "maxFaults": cfg.MaxFaults,
			"depth": cfg.Depth, "partitions": cfg.Partitions, "mutant": ec.mutant, "strategy": string(cfg.Strategy), "workers": cfg.Workers, "processes": ec.processes,
			"memoryBytes": cfg.MemoryBytes, "timeLimitSeconds": cfg.TimeLimit.Seconds(), "shard": ec.shard},
		Config:  cfg.Describe(),
		Summary: r.Summary(),
		Result: exploreResultJSON{Complete: r.Complete, DepthBound: r.DepthBound, Stopped: r.Stopped, Depth: r.Depth, States: r.States,
			Transitions: r.Transitions, Terminal: r.Terminal, V0Ghosts: r.V0Ghosts, V0GhostDepth: r.V0GhostDepth, Frontier: r.Frontier, Levels: r.Levels, Seconds: r.Elapsed.Seconds(),
			CPUSeconds: r.CPU.Seconds(), StatesPerSecond: perSecond(r.States, r.Elapsed), StatesPerCPUSecond: perSecond(r.States, r.CPU),
			MemoryBytes: r.MemoryBytes, Shard: r.Shard, Shards: r.Shards, ShardDepth: r.ShardDepth},
		ExitStatus: status,
	}
	if r.Violation != nil {
		v.Violation = &exploreViolation{Rule: r.Violation.Rule, Detail: r.Violation.Detail, Depth: r.Violation.Depth, Trace: r.Violation.Trace,
			Reproduce: "ghostcheck explore " + strings.Join(exploreArgs(ec), " ")}
		if files != nil {
			v.Violation.History, v.Violation.Page, v.Violation.Replay, v.Violation.Unreproduced = files.History, files.Page, files.Replay, files.Unreproduced
		}
	}
	applied, all := clausesApplied(r.Clauses)
	v.Clauses = exploreClauses{Applied: applied, Total: len(all), Hits: map[string]int{}}
	keys := make([]string, 0, len(r.Clauses))
	for c := range r.Clauses {
		keys = append(keys, string(c))
	}
	sort.Strings(keys)
	for _, c := range keys {
		v.Clauses.Hits[c] = r.Clauses[model.Clause(c)]
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
