package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
	pages "github.com/ghostcheck/ghostcheck/report"
)

// proxyConfig is what `ghostcheck proxy` was asked to run.
type proxyConfig struct {
	proxy proxy.Config
	// conn are --upstream and the TLS flags of the upstream side.
	conn     brokerFlags
	duration time.Duration
	rates    proxy.Rates
	delay    time.Duration
	seed     uint64
	out      string
	verbose  bool
}

func runProxy(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseProxyFlags(args, stderr)
	if code >= 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.duration)
		defer cancel()
	}
	return proxyRun(ctx, cfg, stdout, stderr, nil)
}

// proxyRun runs the proxy until ctx ends, then prints the verdicts and
// writes the recording and the report. ready, when set, is called with
// the running proxy (tests drive clients through it, then cancel ctx).
func proxyRun(ctx context.Context, cfg proxyConfig, stdout, stderr io.Writer, ready func(*proxy.Proxy)) int {
	if len(cfg.rates) > 0 {
		cfg.proxy.Faults = proxy.NewRandomFaults(cfg.seed, cfg.rates, cfg.delay)
	}
	if cfg.verbose {
		cfg.proxy.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	p, err := proxy.Start(cfg.proxy)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck proxy:", err)
		return 1
	}
	fmt.Fprintf(stdout, "ghostcheck proxy: listening on %s for %s (faults %s, seed %d)\n", p.Addr(), cfg.proxy.Upstream, cfg.rates, cfg.seed)
	fmt.Fprintln(stdout, "  the other brokers get listeners of their own as Metadata and FindCoordinator answers name them")
	if ready != nil {
		go ready(p)
	}
	<-ctx.Done()
	p.Close()
	for _, l := range p.Listeners() {
		fmt.Fprintf(stdout, "  %s forwarded to %s\n", l.Addr, l.Upstream)
	}
	reqs := p.Recording()
	results := rules.CheckClients(reqs)
	st := p.Stats()
	fmt.Fprintf(stdout, "ghostcheck proxy: stopped after %d connections (%d refused), %d requests (%d not recorded), %d faults applied, %d brokers\n\n",
		st.Accepted, st.Refused, st.Requests, st.Unrecorded, st.Faults, st.Brokers)
	proxy.WriteVerdicts(stdout, results, st)
	path, err := writeProxyFiles(cfg, reqs, results)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck proxy: writing the recording:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nhistory:  %s\nreplay:   ghostcheck replay %s\n", path, path)
	writeProxyIndex(cfg, path, reqs, results, st, stdout, stderr)
	if history.ClientExpect(results).Verdict != history.Ok {
		return 1
	}
	return 0
}

// writeProxyFiles writes the recording, with the verdict it must replay
// to, as out/proxy.jsonl.
func writeProxyFiles(cfg proxyConfig, reqs []rules.ClientRequest, results []rules.ClientResult) (string, error) {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(cfg.out, "proxy.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	hdr := history.ClientFileHeader{Target: cfg.proxy.Upstream, Title: "clients recorded by ghostcheck proxy",
		Faults: cfg.rates.String(), Seed: cfg.seed, Expect: history.ClientExpect(results)}
	if err := history.WriteClientFile(f, hdr, reqs); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// writeProxyIndex writes out/index.html: the verdict table, a failure per
// violated rule, and what the outcomes and the counts mean.
func writeProxyIndex(cfg proxyConfig, hist string, reqs []rules.ClientRequest, results []rules.ClientResult, st proxy.Stats, stdout, stderr io.Writer) {
	ix := pages.Index{Kind: "proxy", Title: "clients through ghostcheck proxy to " + cfg.proxy.Upstream, Verdict: "Ok"}
	ix.Subtitle = fmt.Sprintf("%d clients, %d requests on %d connections to %d brokers; faults %s (seed %d), %d applied",
		len(results), st.Requests, st.Accepted, st.Brokers, cfg.rates, cfg.seed, st.Faults)
	cols, rows := proxy.VerdictTable(results)
	ix.Summary = pages.Table{Columns: cols, Rows: rows}
	vs := proxy.Violations(results)
	ix.Headline = fmt.Sprintf("%d clients, %d rules broken", len(results), len(vs))
	for _, v := range vs {
		ix.Verdict = "FAIL"
		ix.Failures = append(ix.Failures, pages.FailureLink{Label: v.Column + " " + v.Client, Verdict: string(history.Illegal),
			Rule: string(v.Rule), Detail: v.Detail, Replay: "ghostcheck replay " + hist})
	}
	ix.Notes = append(proxy.Legend(results),
		"PASS: kept every time the client could have broken it; VIOLATED: broken (see the failures); NOT ADOPTED: the client does not implement that change yet (no tag 0 in its headers, ClientId on every request, ConsumerGroupHeartbeat v0 only); -: nothing the rule speaks of happened. ghostcheck explain RULE prints a rule.",
		"Requests by api: "+strings.Join(proxy.APICounts(reqs), ", ")+".",
		"The recording, "+hist+", replays with: ghostcheck replay "+hist)
	path, err := pages.WriteIndex(cfg.out, ix)
	sayIndex(path, err, false, stdout, stderr)
}

func parseProxyFlags(args []string, stderr io.Writer) (proxyConfig, int) {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg proxyConfig
	fs.StringVar(&cfg.proxy.Listen, "listen", "127.0.0.1:9192", "the bootstrap address clients connect to (the other brokers get listeners on the same host)")
	cfg.conn.registerTLS(fs, "upstream", "the bootstrap broker to forward to, `HOST:PORT` (required); the TLS flags apply to the upstream side (the clients speak plaintext to the proxy; their own SASL exchange passes through)")
	fs.StringVar(&cfg.proxy.Advertise, "advertise", "", "the host written into rewritten Metadata and FindCoordinator answers (default: --listen's host)")
	fs.DurationVar(&cfg.duration, "duration", 0, "stop after this long (0: at SIGINT or SIGTERM)")
	faults := fs.String("faults", "none", "fault rates in percent per group request: drop, delay, close, coordinator-not-available, not-coordinator, unknown-member-id, fenced-member-epoch, or uniform=N, error=N")
	fs.DurationVar(&cfg.delay, "delay", 200*time.Millisecond, "how long the delay fault holds an answer")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the fault draws")
	fs.StringVar(&cfg.out, "out", "out", "where the recording (proxy.jsonl) and the report (index.html) go")
	fs.IntVar(&cfg.proxy.MaxConns, "max-connections", proxy.DefaultMaxConns, "cap on open client connections")
	fs.IntVar(&cfg.proxy.MaxFrameSize, "max-frame-size", proxy.DefaultMaxFrameSize, "largest frame either way, in bytes")
	fs.IntVar(&cfg.proxy.MaxRecords, "max-records", proxy.DefaultMaxRecords, "requests recorded; later ones are forwarded and counted")
	fs.IntVar(&cfg.proxy.MaxRecordedBytes, "max-recorded-bytes", proxy.DefaultMaxRecordedBytes, "bytes the records may hold (headers, ClientIds, the bodies and answers kept); later requests are forwarded and counted")
	fs.DurationVar(&cfg.proxy.IdleTimeout, "idle-timeout", proxy.DefaultIdleTimeout, "close client connections silent for this long")
	fs.BoolVar(&cfg.verbose, "v", false, "log connections that end early, and why")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck proxy --upstream HOST:PORT [--listen ADDR] [--duration D] [--faults ...] [--seed N] [--out DIR] [--tls ...]")
		fmt.Fprintln(stderr, "Forwards a client library's traffic to a broker, records it, injects faults on group requests, and at the end")
		fmt.Fprintln(stderr, "judges each client against the client rules of docs/PROTOCOL.md (exit 1 if one was broken).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	addrs := cfg.conn.addrs()
	if fs.NArg() > 0 || len(addrs) == 0 {
		fs.Usage()
		return cfg, 2
	}
	if len(addrs) > 1 {
		return cfg, usageErr(stderr, "proxy", "--upstream %s: one bootstrap broker (the others get listeners as Metadata names them)", cfg.conn.bootstrap)
	}
	cfg.proxy.Upstream = addrs[0]
	d, err := cfg.conn.dialer(stderr)
	if err != nil {
		return cfg, usageErr(stderr, "proxy", "%v", err)
	}
	if d.TLS != nil {
		cfg.proxy.DialUpstream = d.DialNet
	}
	if cfg.rates, err = proxy.ParseRates(*faults); err != nil {
		fmt.Fprintln(stderr, "ghostcheck proxy:", err)
		return cfg, 2
	}
	if cfg.duration < 0 || cfg.delay < 0 || cfg.proxy.IdleTimeout < 0 {
		fmt.Fprintln(stderr, "ghostcheck proxy: --duration, --delay and --idle-timeout must not be negative")
		return cfg, 2
	}
	if c := cfg.proxy; c.MaxConns < 0 || c.MaxFrameSize < 0 || c.MaxRecords < 0 {
		return cfg, usageErr(stderr, "proxy", "--max-connections, --max-frame-size and --max-records must not be negative (0: the default)")
	}
	return cfg, -1
}
