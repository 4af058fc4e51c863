package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/plan"
)

// checkConfig is what `ghostcheck check` was asked to do.
type checkConfig struct {
	peer conformance.Peer
	// conn are the cluster's addresses and security (--bootstrap, --tls*,
	// --sasl-*).
	conn     brokerFlags
	prefixes []string // case name prefixes; none: every case
	risky    bool
	// hist is the history run; hist.Histories 0 runs none.
	hist      conformance.HistoryConfig
	asJSON    bool
	brokerCmd string
	known     *conformance.Known
	knownFile string
	// kafkaVersion is the Apache Kafka release the broker is held to
	// ("": every rule ghostcheck checks).
	kafkaVersion string
	// list: print the cases and exit (--list); junit: where --junit
	// writes; cases: --cases as given.
	list  bool
	junit string
	cases string
	// protocolSet and roundsSet: --protocol and --rounds were given, so
	// check does not choose them itself (historyProtocol).
	protocolSet, roundsSet bool
}

// checkUsage is check's help after its usage line.
const checkUsage = `Runs the conformance suite (one case per rule of docs/PROTOCOL.md A1-A3, A5, A6, A7, §B4.2, §B4.4, §B5, §B8) against a broker,
then fault-injected client histories checked at the observable level. Exit 1 if anything fails;
each failure names its rule, which 'ghostcheck explain' prints.

A broker that stops answering during a case makes it CRASH (a finding), with the last request the case
sent written to OUT/crash-CASE.hex ('ghostcheck decode < FILE' reads it). Without --broker-cmd the check
stops there; with it, every case and history from then on gets a fresh broker: COMMAND runs with sh -c,
prints the broker's bootstrap address as its first stdout line, and runs until its stdin closes or
SIGTERM (as peers/librdkafka's rdmock does). --broker-cmd alone starts the first broker too.

--kafka-version X.Y holds the broker to that Apache Kafka release (2.3 to 4.2.1). Without it, check holds the
broker to the newest release consistent with what its ApiVersions lists and what it serves (a 3.9 broker lists
ConsumerGroupHeartbeat v0 and answers it UNSUPPORTED_VERSION) and prints "held to Kafka X (inferred from
ApiVersions: ...)" at the top (docs/PROTOCOL.md B13). A case that fails on a rule the release does not ship (its
SOURCE: a later release, trunk only, an open PR, a KIP not shipped) is reported "N/A (ships in ...)" instead of
FAIL and does not count as a failure, so a broker that does what that release does passes. A case that needs an
api the broker does not list, or lists and does not serve, is SKIP with that reason. --kafka-version next holds
it to every rule, shipped or not. A case whose request ghostcheck itself could not build is ERROR: a bug of
ghostcheck, exit 4 when nothing failed.
A broker that advertises no classic group api (JoinGroup, SyncGroup, Heartbeat) gets N/A for the
classic cases (A6, §B8): it serves no classic groups.

The cluster: --bootstrap may list several brokers; each case speaks to the coordinator of its groups
(FindCoordinator), and NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS are
retried as Kafka's clients do, never judged by themselves (a case whose coordinator moved while it ran is
SKIP). TLS: --tls (system roots), --tls-ca FILE, --tls-cert FILE --tls-key FILE, --tls-server-name NAME,
--tls-insecure. SASL: --sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512 --sasl-user USER, the password from
--sasl-password-file FILE or the environment's ` + passwordEnv + ` (never a flag). Credentials or certificates
the cluster refuses: exit 2, nothing checked; they are never printed or written.

--known FILE names findings already recorded, one a line: 'ID KIND NAME [OBSERVED]', # comments.
  case NAME        the case is known to FAIL or CRASH; reported "(known ID)", not counted in the exit
                   status (OBSERVED, if given, must be in what the case observed)
  probe KIND       histories leave out the prober's requests of KIND (v1-join-empty-member-id,
                   telemetry-zero-instance-id, telemetry-no-instance-id, stale-heartbeat)
  rule RULE        violations of RULE (containing OBSERVED, if given) are known; a history whose
                   only violations are known is KNOWN, not Illegal
  workaround NAME  change ghostcheck's requests to get past a known crash: join-regex-empty
                   (heartbeats naming topics send SubscribedTopicRegex "" instead of null),
                   push-metrics-empty (PushTelemetry carries no metrics), classic-not-flexible
                   (the classic cases send JoinGroup at v5 and SyncGroup at v3 at most)
`

func parseCheckFlags(args []string, stderr io.Writer) (checkConfig, int) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg checkConfig
	p := &cfg.peer
	cfg.conn.register(fs, "bootstrap", "the broker or cluster to check (required unless --broker-cmd)")
	fs.DurationVar(&p.SessionTimeout, "session-timeout", 0, "the broker's consumer session timeout; needed by the session cases and the history run (keep it short, e.g. 1s)")
	fs.DurationVar(&p.HeartbeatInterval, "heartbeat-interval", 0, "the broker's consumer heartbeat interval; needed by the history run")
	fs.IntVar(&p.MaxGroupSize, "max-group-size", 0, "the broker's group.consumer.max.size, for the size-cap case (0: skip it)")
	fs.StringVar(&p.Topic, "topic", "alpha", "a topic the broker has, for subscriptions")
	fs.DurationVar(&p.ClassicSessionTimeout, "classic-session-timeout", 0, "the session timeout the classic cases' JoinGroups send, within the broker's group.min.session.timeout.ms and group.max.session.timeout.ms (0: 6s, Kafka's minimum); their rebalance timeout is half of it, and the slow classic cases wait it out")
	fs.IntVar(&p.ClassicMaxGroupSize, "classic-max-group-size", 0, "the broker's group.max.size, for the classic size-cap cases (0: skip them)")
	fs.DurationVar(&p.ClassicMinSessionTimeout, "classic-min-session-timeout", 0, "the broker's group.min.session.timeout.ms, for the case that joins at it and 1ms below (0: skip it)")
	fs.DurationVar(&p.ClassicMaxSessionTimeout, "classic-max-session-timeout", 0, "the broker's group.max.session.timeout.ms, for the case that joins at it and 1ms above (0: skip it)")
	fs.StringVar(&cfg.cases, "cases", "", "run only cases whose names start with one of these, comma-separated (e.g. A1,B4.2; none: no case, histories only)")
	fs.BoolVar(&cfg.list, "list", false, "list the cases (name, rule, whether risky or slow) and exit")
	fs.StringVar(&cfg.junit, "junit", "", "also write the results as JUnit XML to `FILE`: a testcase per case and per history")
	fs.BoolVar(&cfg.risky, "risky", true, "run the cases that may crash a broker that mishandles them (after everything else)")
	fs.IntVar(&cfg.hist.Histories, "histories", 2, "fault-injected histories to run after the suite (0: none)")
	fs.Uint64Var(&cfg.hist.Seed, "seed", 1, "first history's seed")
	cfg.hist.Options = conformance.DefaultHistoryOptions()
	fs.IntVar(&cfg.hist.Options.Clients, "clients", 6, "client processes per history")
	fs.IntVar(&cfg.hist.Options.Rounds, "rounds", 40, "rounds of 50 ms real time per history")
	faults := fs.String("faults", "uniform=10", "fault rates per request, as for ghostcheck run")
	protocol := fs.String("protocol", "consumer", "the histories' group protocol: consumer, classic (JoinGroup/SyncGroup/Heartbeat, 6 s sessions the broker must accept; give them --rounds 200 or more), mixed, or upgrade and rollback (each group's processes restarted one by one with the other protocol: the broker needs group.consumer.migration.policy bidirectional, Kafka's default; docs/PROTOCOL.md A7); not given, classic against a broker that does not serve the consumer protocol (2.3-3.9), with 200 rounds")
	fs.StringVar(&cfg.hist.Out, "out", "out", "directory for failing histories and the requests that crashed a broker")
	fs.BoolVar(&cfg.asJSON, "json", false, "print results as JSON (schema ghostcheck/check/v1, with the options used)")
	fs.StringVar(&cfg.brokerCmd, "broker-cmd", "", "a shell `COMMAND` that starts a fresh broker and prints its address (see above)")
	fs.StringVar(&cfg.knownFile, "known", "", "a `FILE` of findings already recorded (see above)")
	fs.StringVar(&cfg.kafkaVersion, "kafka-version", "", "hold the broker to this Apache Kafka `RELEASE` (e.g. 3.9, 4.0.0; next: every rule, shipped or not): rules it does not ship are N/A (default: the newest release its ApiVersions and answers are consistent with; see above)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck check --bootstrap HOST:PORT | --broker-cmd COMMAND [flags]")
		fmt.Fprint(stderr, checkUsage)
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, args); code >= 0 {
		return cfg, code
	}
	fs.Visit(func(f *flag.Flag) {
		cfg.protocolSet = cfg.protocolSet || f.Name == "protocol"
		cfg.roundsSet = cfg.roundsSet || f.Name == "rounds"
	})
	p.Bootstrap = cfg.conn.addrs()
	if fs.NArg() > 0 || !cfg.list && len(p.Bootstrap) == 0 && cfg.brokerCmd == "" {
		fs.Usage()
		return cfg, exitUsage
	}
	if cfg.list {
		return cfg, -1
	}
	if code := validateCheck(&cfg, stderr); code >= 0 {
		return cfg, code
	}
	var err error
	if p.Dialer, err = cfg.conn.dialer(stderr); err != nil {
		return cfg, usageErr(stderr, "check", "%v", err)
	}
	if cfg.hist.Options.Faults, err = plan.ParseFaultRates(*faults); err != nil {
		fmt.Fprintln(stderr, "ghostcheck check:", err)
		return cfg, 2
	}
	if cfg.hist.Options.Protocol, err = plan.ParseProtocol(*protocol); err != nil {
		return cfg, usageErr(stderr, "check", "--protocol: %v", err)
	}
	if err := conformance.ParseHeldTo(cfg.kafkaVersion); cfg.kafkaVersion != "" && err != nil {
		return cfg, usageErr(stderr, "check", "--kafka-version: %v (or %s)", err, conformance.ReleaseNext)
	}
	if cfg.knownFile != "" {
		if cfg.known, err = conformance.LoadKnown(cfg.knownFile); err != nil {
			fmt.Fprintln(stderr, "ghostcheck check: --known:", err)
			return cfg, 2
		}
	}
	cfg.hist.Peer, cfg.hist.Known = cfg.peer, cfg.known
	return cfg, -1
}

// checkOutcome is everything check found, for printing.
type checkOutcome struct {
	addr      string
	brokerCmd string
	peer      conformance.Peer
	// kafkaVersion is the release the broker was held to: --kafka-version,
	// or the one inferred ("": none); heldLine says which and why.
	kafkaVersion string
	heldLine     string
	// histSkipped says why the histories were not run ("": they were, or
	// none was asked for); histChosen why check chose their protocol
	// itself ("": --protocol, or the default stood).
	histSkipped, histChosen string
	histProtocol            plan.Protocol
	cases                   *conformance.Report
	hist                    *conformance.HistoryReport
	launches                int
	options                 map[string]any
}

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseCheckFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if cfg.list {
		printCaseList(stdout)
		return exitOK
	}
	var safe, last []conformance.Case
	for _, c := range conformance.Select(cfg.prefixes, cfg.risky, true) {
		if c.Risky {
			last = append(last, c)
		} else {
			safe = append(safe, c)
		}
	}
	var launch conformance.Launcher
	if cfg.brokerCmd != "" {
		launch = conformance.CommandLauncher(cfg.brokerCmd)
	}
	broker, err := conformance.NewBroker(cfg.peer.Bootstrap, launch, 0)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck check:", err)
		return 1
	}
	defer broker.Close()
	out := checkOutcome{addr: strings.Join(broker.Bootstrap(), ","), brokerCmd: cfg.brokerCmd, peer: cfg.peer, kafkaVersion: cfg.kafkaVersion, options: checkOptions(cfg)}
	opts := conformance.Options{Known: cfg.known, Broker: broker, Out: cfg.hist.Out, KafkaVersion: cfg.kafkaVersion, InferRelease: cfg.kafkaVersion == "", Progress: func(r conformance.Result) {
		if !cfg.asJSON {
			fmt.Fprintf(stderr, "  %-44s %s\n", r.Name, r.Status)
		}
	}}
	fmt.Fprintf(stderr, "ghostcheck check: %d conformance cases against %s\n", len(safe)+len(last), out.addr)
	if out.cases, err = conformance.Run(cfg.peer, safe, opts); err != nil {
		return dialFailed(stderr, "check", err)
	}
	if h := out.cases.Held; h != nil {
		out.kafkaVersion, out.heldLine = h.Release, h.Line()
		if !cfg.asJSON {
			fmt.Fprintf(stderr, "ghostcheck check: %s\n", out.heldLine)
		}
	}
	hp := historyProtocol(cfg, out.cases)
	cfg.hist.Options.Protocol, out.histProtocol, out.histChosen = hp.protocol, hp.protocol, hp.chosen
	if hp.chosen != "" && !cfg.roundsSet {
		cfg.hist.Options.Rounds = max(cfg.hist.Options.Rounds, classicRounds)
	}
	if hp.skip != "" && cfg.hist.Histories > 0 {
		out.histSkipped = hp.skip
		fmt.Fprintf(stderr, "ghostcheck check: histories SKIP: %s\n", hp.skip)
	} else if out.cases.Stopped == "" {
		if hp.chosen != "" && cfg.hist.Histories > 0 {
			fmt.Fprintf(stderr, "ghostcheck check: histories of classic members (JoinGroup, SyncGroup, Heartbeat): %s\n", hp.chosen)
		}
		cfg.hist.Broker = broker
		if out.hist, err = checkHistories(cfg, stderr); err != nil {
			return dialFailed(stderr, "check: history run", err)
		}
	}
	if len(last) > 0 {
		if out.cases.Stopped != "" || out.hist != nil && out.hist.Stopped != "" {
			for _, c := range last {
				out.cases.NotRun = append(out.cases.NotRun, c.Name)
			}
		} else if more, err := conformance.Run(cfg.peer, last, opts); err != nil {
			fmt.Fprintln(stderr, "ghostcheck check: risky cases:", err)
		} else {
			out.cases.Results = append(out.cases.Results, more.Results...)
			out.cases.Stopped, out.cases.NotRun = more.Stopped, append(out.cases.NotRun, more.NotRun...)
		}
	}
	out.launches = broker.Launches
	if cfg.asJSON {
		printCheckJSON(stdout, out)
	} else {
		printCheck(stdout, out)
	}
	writeCheckReport(cfg, out, stdout, stderr)
	if cfg.junit != "" {
		if err := writeCheckJUnit(cfg.junit, cfg, out); err != nil {
			fmt.Fprintln(stderr, "ghostcheck check: --junit:", err)
			return exitFailed
		}
	}
	if checkFailures(out) > 0 {
		return 1
	}
	if n := conformance.Counts(out.cases.Results)[conformance.Error]; n > 0 {
		fmt.Fprintf(stderr, "ghostcheck check: %d cases ERROR: ghostcheck could not build its own request; a bug of ghostcheck, not of the broker (please report it)\n", n)
		return exitInternal
	}
	return 0
}

func printCheckJSON(w io.Writer, out checkOutcome) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	v := map[string]any{"schema": "ghostcheck/check/v1", "options": out.options, "bootstrap": out.addr, "cases": out.cases.Results}
	if out.kafkaVersion != "" {
		v["kafkaVersion"] = out.kafkaVersion
	}
	if out.cases.Held != nil {
		v["heldTo"] = out.cases.Held
	}
	if out.brokerCmd != "" {
		v["brokerCmd"], v["brokersStarted"] = out.brokerCmd, out.launches
	}
	if len(out.cases.Negotiation) > 0 {
		v["negotiation"] = out.cases.Negotiation
	}
	if out.cases.Stopped != "" {
		v["stopped"] = out.cases.Stopped
	}
	if len(out.cases.NotRun) > 0 {
		v["notRun"] = out.cases.NotRun
	}
	if out.histSkipped != "" {
		v["historiesSkipped"] = out.histSkipped
	}
	if out.hist != nil {
		v["historiesProtocol"] = out.histProtocol
		if out.histChosen != "" {
			v["historiesProtocolChosen"] = out.histChosen
		}
		v["histories"] = out.hist.Histories
		hn := *out.hist
		hn.Histories = nil
		v["historyNotes"] = hn
	}
	v["exitStatus"] = exitOK
	if checkFailures(out) > 0 {
		v["exitStatus"] = exitFailed
	} else if conformance.Counts(out.cases.Results)[conformance.Error] > 0 {
		v["exitStatus"] = exitInternal
	}
	_ = enc.Encode(v)
}

// checkHistories runs the fault-injected histories, if asked (the
// broker's timers are known: validateCheck refuses histories without).
func checkHistories(cfg checkConfig, stderr io.Writer) (*conformance.HistoryReport, error) {
	if cfg.hist.Histories == 0 {
		return nil, nil
	}
	fmt.Fprintf(stderr, "ghostcheck check: %d fault-injected histories\n", cfg.hist.Histories)
	return conformance.RunHistories(cfg.hist, func(h conformance.HistoryResult) {
		if !cfg.asJSON {
			fmt.Fprintf(stderr, "  seed %d: %s %s (%.1fs)\n", h.Seed, h.Status, h.Rule, h.Seconds)
		}
	})
}

// checkFailures counts the findings that are not known: failing or
// crashing cases, histories not Ok or KNOWN, and a check that stopped with
// cases or histories left (even at a known crash: what was not run was
// not checked).
func checkFailures(out checkOutcome) int {
	n := 0
	if len(out.cases.NotRun) > 0 || out.hist != nil && out.hist.Stopped != "" || nothingChecked(out) {
		n++
	}
	for _, r := range out.cases.Results {
		if r.Failed() {
			n++
		}
	}
	if out.hist != nil {
		for _, h := range out.hist.Histories {
			if h.Failed() {
				n++
			}
		}
	}
	return n
}

// nothingChecked: no case was run and the histories SKIP, so the check
// looked at nothing (a failure: it must not pass as a clean check).
func nothingChecked(out checkOutcome) bool {
	return len(out.cases.Results) == 0 && out.hist == nil && out.histSkipped != ""
}

// printCheck prints the results: the table of cases, what the check could
// not do, the rule each failing case checks (from docs/PROTOCOL.md), then
// the histories.
func printCheck(w io.Writer, out checkOutcome) {
	fmt.Fprintf(w, "conformance of %s\n", out.addr)
	if out.heldLine != "" {
		fmt.Fprintln(w, out.heldLine)
	}
	fmt.Fprintln(w)
	rs := out.cases.Results
	conformance.Table(w, rs)
	c := conformance.Counts(rs)
	known := 0
	for _, r := range rs {
		if r.Known != "" {
			known++
		}
	}
	fmt.Fprintf(w, "\n%d cases: %d pass, %d fail, %d skip, %d crash", len(rs), c[conformance.Pass], c[conformance.Fail], c[conformance.Skip], c[conformance.Crash])
	if c[conformance.Error] > 0 {
		fmt.Fprintf(w, ", %d ERROR of ghostcheck (a request it could not build: a bug of ghostcheck, not of the broker)", c[conformance.Error])
	}
	if known > 0 {
		fmt.Fprintf(w, " (%d of the fail and crash known)", known)
	}
	switch out.kafkaVersion {
	case "", conformance.ReleaseNext:
		fmt.Fprintf(w, "; held to every rule, shipped or not (--kafka-version %s)", conformance.ReleaseNext)
	default:
		fmt.Fprintf(w, ", %d n/a (not shipped in Kafka %s)", c[conformance.NotApplicable], out.kafkaVersion)
	}
	fmt.Fprintln(w)
	printCaseNotes(w, out)
	for _, r := range rs {
		if r.Failed() {
			fmt.Fprintf(w, "\n%s  %s\n", r.Name, r.Status)
			if r.FrameFile != "" {
				fmt.Fprintf(w, "  request  %s (ghostcheck decode < %s)\n", r.FrameFile, r.FrameFile)
			}
			citeRule(w, r.Name)
		}
	}
	if out.histSkipped != "" {
		fmt.Fprintf(w, "\nhistories: SKIP: %s\n", out.histSkipped)
	}
	if nothingChecked(out) {
		fmt.Fprintln(w, "nothing was checked: no case was selected (--cases) and the histories SKIP")
	}
	if out.hist == nil {
		return
	}
	printHistories(w, out)
}

// printCaseNotes says how ApiVersions was settled, when the check stopped
// or started fresh brokers, and which known findings did not reproduce.
func printCaseNotes(w io.Writer, out checkOutcome) {
	rep := out.cases
	if len(rep.Negotiation) > 0 {
		fmt.Fprintf(w, "ApiVersions: %s\n", strings.Join(rep.Negotiation, "; "))
	}
	if out.launches > 0 && out.brokerCmd != "" {
		fmt.Fprintf(w, "brokers started by --broker-cmd: %d\n", out.launches)
	}
	if rep.Stopped != "" {
		fmt.Fprintf(w, "stopped: %s\n", rep.Stopped)
	}
	if len(rep.NotRun) > 0 {
		fmt.Fprintf(w, "not run: %d cases (%s)\n", len(rep.NotRun), strings.Join(rep.NotRun, ", "))
	}
	for _, r := range rep.Results {
		if r.Note != "" {
			fmt.Fprintf(w, "note: %s: %s\n", r.Name, r.Note)
		}
	}
}

func printHistories(w io.Writer, out checkOutcome) {
	h := out.hist
	if out.histProtocol == plan.ProtocolClassic {
		fmt.Fprintf(w, "\nhistories (observable level, classic members, %v sessions)\n", time.Duration(plan.ClassicMinSessionTimeoutMs)*time.Millisecond)
	} else {
		fmt.Fprintf(w, "\nhistories (observable level, %s session timeout)\n", out.peer.SessionTimeout)
	}
	if out.histChosen != "" {
		fmt.Fprintf(w, "  classic members, not consumer-protocol ones: %s (--protocol consumer insists, and SKIPs)\n", out.histChosen)
	}
	if len(h.Unchecked) > 0 {
		fmt.Fprintf(w, "  without ConsumerGroupDescribe, not checked: %s (MonotonicEpochs and MemberVanished only from heartbeat answers)\n", strings.Join(h.Unchecked, ", "))
	}
	if len(h.LeftOut) > 0 {
		fmt.Fprintf(w, "  probes left out (known): %s\n", strings.Join(h.LeftOut, ", "))
	}
	if len(h.Workarounds) > 0 {
		fmt.Fprintf(w, "  workarounds (known): %s\n", strings.Join(h.Workarounds, ", "))
	}
	if len(h.Negotiation) > 0 && (out.cases == nil || strings.Join(h.Negotiation, "; ") != strings.Join(out.cases.Negotiation, "; ")) {
		fmt.Fprintf(w, "  ApiVersions: %s\n", strings.Join(h.Negotiation, "; "))
	}
	for _, hr := range h.Histories {
		fmt.Fprintf(w, "  seed %-4d %-8s %4d ops, lag %3d ms, %.1fs\n", hr.Seed, hr.Status, hr.Operations, hr.LagMs, hr.Seconds)
		if len(hr.Known) > 0 {
			fmt.Fprintf(w, "    known:   %s\n", strings.Join(hr.Known, ", "))
		}
		if hr.Crash != "" {
			fmt.Fprintf(w, "    crash:   the broker stopped answering: %s\n", hr.Crash)
		}
		if hr.Rule != "" && hr.Verdict != history.Ok {
			fmt.Fprintf(w, "    %s: %s\n", hr.Rule, hr.Detail)
		}
		if hr.File != "" && hr.Failed() {
			fmt.Fprintf(w, "    history: %s\n", hr.File)
		}
		if _, ok := docs.Lookup(hr.Rule); ok && hr.Failed() {
			fmt.Fprintf(w, "    rule:    ghostcheck explain %s\n", hr.Rule)
		}
	}
	if h.Stopped != "" {
		fmt.Fprintf(w, "  stopped: %s\n", h.Stopped)
	}
}
