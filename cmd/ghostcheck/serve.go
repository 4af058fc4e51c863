package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/internal/releases"
	"github.com/ghostcheck/ghostcheck/model"
)

// serveConfig is what `ghostcheck serve` was asked to run.
type serveConfig struct {
	listen  string
	coord   impl.Config
	server  server.Config
	drain   time.Duration
	verbose bool
	// release is the Kafka release played (--kafka-version; nil: every
	// api and version ghostcheck speaks).
	release *releases.Release
}

func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseServeFlags(args, stderr)
	if code >= 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck serve:", err)
		return 1
	}
	if err := serve(ctx, ln, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "ghostcheck serve:", err)
		return 1
	}
	return 0
}

// serve runs the server on ln until ctx ends, then shuts it down
// gracefully.
func serve(ctx context.Context, ln net.Listener, cfg serveConfig, stdout, stderr io.Writer) error {
	coord := impl.New(cfg.coord)
	scfg := cfg.server
	scfg.Coordinator = coord
	if cfg.verbose {
		scfg.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	srv, err := server.New(scfg)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(stdout, "ghostcheck serve: listening on %s (session timeout %v, heartbeat interval %v", ln.Addr(),
		time.Duration(cfg.coord.SessionTimeoutMs)*time.Millisecond, time.Duration(cfg.coord.HeartbeatIntervalMs)*time.Millisecond)
	if cfg.coord.MaxGroupSize > 0 {
		fmt.Fprintf(stdout, ", max group size %d", cfg.coord.MaxGroupSize)
	}
	fmt.Fprintln(stdout, ")")
	fmt.Fprintf(stdout, "  classic groups: session timeouts %v to %v, initial rebalance delay %v", ms(cfg.coord.ClassicMinSessionTimeoutMs),
		ms(cfg.coord.ClassicMaxSessionTimeoutMs), ms(cfg.coord.InitialRebalanceDelayMs))
	if cfg.coord.ClassicMaxGroupSize > 0 {
		fmt.Fprintf(stdout, ", max group size %d", cfg.coord.ClassicMaxGroupSize)
	}
	fmt.Fprintln(stdout)
	if cfg.release != nil {
		fmt.Fprintf(stdout, "  plays a default %s broker (docs/PROTOCOL.md B13)%s\n", cfg.release, unservedNote(cfg.coord.Unserved))
	}
	if p := model.MigrationPolicy(cfg.coord.MigrationPolicy); p != model.MigrationOutside {
		fmt.Fprintf(stdout, "  mixed groups: group.consumer.migration.policy %s (docs/PROTOCOL.md A7)\n", p)
	}
	if cfg.coord.Mutants.Any() {
		fmt.Fprintf(stdout, "  MUTANT %s planted: this coordinator breaks the protocol on purpose\n", cfg.coord.Mutants)
	}
	for _, t := range cfg.coord.Topics {
		fmt.Fprintf(stdout, "  topic %s: %d partitions, id %s\n", t.Name, t.Partitions, t.ID)
	}
	var apis []string
	for _, k := range coord.AdvertisedVersions() {
		apis = append(apis, fmt.Sprintf("%v v%d-v%d", k.ApiKey, k.MinVersion, k.MaxVersion))
	}
	fmt.Fprintf(stdout, "  serves %s\n", strings.Join(apis, ", "))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		srv.Close()
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "ghostcheck serve: shutting down (draining in-flight requests)")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.drain)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, server.ErrServerClosed) && err == nil {
		err = serr
	}
	st := srv.Stats()
	fmt.Fprintf(stdout, "ghostcheck serve: stopped after %d connections (%d refused over the cap) and %d requests\n", st.Accepted, st.Refused, st.Requests)
	return err
}

func parseServeFlags(args []string, stderr io.Writer) (serveConfig, int) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg serveConfig
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:9092", "address to listen on")
	session := fs.Duration("session-timeout", 45*time.Second, "group.consumer.session.timeout.ms: a member that does not heartbeat for this long is removed")
	interval := fs.Duration("heartbeat-interval", 5*time.Second, "group.consumer.heartbeat.interval.ms: the interval members are told to heartbeat at")
	fs.IntVar(&cfg.coord.MaxGroupSize, "max-group-size", 0, "group.consumer.max.size (0: no limit)")
	classicMin := fs.Duration("classic-min-session-timeout", 6*time.Second, "group.min.session.timeout.ms: a classic JoinGroup with a shorter session timeout is INVALID_SESSION_TIMEOUT")
	classicMax := fs.Duration("classic-max-session-timeout", 30*time.Minute, "group.max.session.timeout.ms: a classic JoinGroup with a longer session timeout is INVALID_SESSION_TIMEOUT")
	initialDelay := fs.Duration("initial-rebalance-delay", 3*time.Second, "group.initial.rebalance.delay.ms: how long a classic group's first rebalance waits for more members")
	fs.IntVar(&cfg.coord.ClassicMaxGroupSize, "classic-max-group-size", 0, "group.max.size, the cap on a classic group's members (0: no limit)")
	topics := fs.String("topics", "alpha:6,beta:3", "the topics the assignor serves, NAME:PARTITIONS,... (topic ids are generated)")
	fs.IntVar(&cfg.server.MaxConns, "max-connections", server.DefaultMaxConns, "cap on open connections; over it a new connection is closed at once (0: the default)")
	fs.IntVar(&cfg.server.MaxFrameSize, "max-frame-size", server.DefaultMaxFrameSize, "largest request frame accepted, in bytes (socket.request.max.bytes; 0: the default)")
	fs.DurationVar(&cfg.server.FrameTimeout, "frame-timeout", server.DefaultFrameTimeout, "how long the rest of a request may take once its first byte has arrived (0: the default)")
	fs.DurationVar(&cfg.server.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "close connections silent for this long (connections.max.idle.ms; 0: the default)")
	fs.DurationVar(&cfg.drain, "drain-timeout", 10*time.Second, "on SIGINT/SIGTERM, how long to wait for in-flight requests")
	fs.BoolVar(&cfg.verbose, "v", false, "log connections closed for protocol errors")
	kafkaVersion := fs.String("kafka-version", "", "advertise and answer as a default broker of this Apache Kafka `RELEASE` (2.3 to 4.2.1; docs/PROTOCOL.md B13) does: its ApiVersions ranges, UNSUPPORTED_VERSION for what it lists without serving, the connection closed for what it lacks (\"\": every api and version ghostcheck speaks)")
	migration := fs.String("migration-policy", "outside", "group.consumer.migration.policy (docs/PROTOCOL.md A7): disabled, upgrade, downgrade or bidirectional (Kafka's default) let classic members into consumer groups and convert groups as Kafka does; ghostcheck's own outside keeps mixed groups out (A6.5)")
	mutant := fs.String("mutant", "", "plant one of impl's bugs, to measure what check catches over TCP: "+serveMutantNames())
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck serve [flags]")
		fmt.Fprintln(stderr, "Serves ghostcheck's coordinator (impl) over TCP in Kafka's framing until SIGINT or SIGTERM.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return cfg, 2
	}
	if *session < time.Millisecond || *interval < time.Millisecond || *session > 24*time.Hour || *interval > time.Hour {
		fmt.Fprintln(stderr, "ghostcheck serve: --session-timeout and --heartbeat-interval must be between 1ms and a day (an hour)")
		return cfg, 2
	}
	if cfg.coord.MaxGroupSize < 0 || cfg.coord.ClassicMaxGroupSize < 0 || cfg.server.MaxConns < 0 || cfg.server.MaxFrameSize < 0 {
		fmt.Fprintln(stderr, "ghostcheck serve: --max-group-size, --classic-max-group-size, --max-connections and --max-frame-size must not be negative")
		return cfg, 2
	}
	if *classicMin < time.Millisecond || *classicMax < *classicMin || *classicMax > 24*time.Hour || *initialDelay < 0 || *initialDelay > time.Hour {
		return cfg, usageErr(stderr, "serve", "--classic-min-session-timeout %v and --classic-max-session-timeout %v must be between 1ms and a day, min first; --initial-rebalance-delay %v between 0 and an hour", *classicMin, *classicMax, *initialDelay)
	}
	cfg.coord.ClassicMinSessionTimeoutMs = int32(classicMin.Milliseconds())
	cfg.coord.ClassicMaxSessionTimeoutMs = int32(classicMax.Milliseconds())
	cfg.coord.InitialRebalanceDelayMs = int32(initialDelay.Milliseconds())
	cfg.coord.NewMemberJoinTimeoutMs = newMemberJoinTimeoutMs
	if f, bad := negativeDuration(durationFlag{"frame-timeout", cfg.server.FrameTimeout}, durationFlag{"idle-timeout", cfg.server.IdleTimeout},
		durationFlag{"drain-timeout", cfg.drain}); bad {
		return cfg, usageErr(stderr, "serve", "--%s %v must not be negative", f.name, f.d)
	}
	cfg.coord.SessionTimeoutMs = session.Milliseconds()
	cfg.coord.HeartbeatIntervalMs = int32(interval.Milliseconds())
	cfg.coord.Telemetry = impl.TelemetryConfig{SubscriptionID: 1, PushIntervalMs: 30000, TelemetryMaxBytes: 1 << 20,
		AcceptedCompressionTypes: []int8{0}, DeltaTemporality: true, RequestedMetrics: []string{""}}
	if *kafkaVersion != "" {
		r, err := releases.Lookup(*kafkaVersion)
		if err != nil {
			return cfg, usageErr(stderr, "serve", "--kafka-version: %v", err)
		}
		cfg.release = &r
		cfg.coord.MaxVersions, cfg.coord.MinVersions, cfg.coord.Unserved = r.ServerCaps()
	}
	var ok bool
	if cfg.coord.MigrationPolicy, ok = parseMigrationPolicy(*migration); !ok {
		return cfg, usageErr(stderr, "serve", "--migration-policy %q: want outside, disabled, upgrade, downgrade or bidirectional", *migration)
	}
	if *mutant != "" {
		m, err := impl.ParseMutant(*mutant)
		if err != nil {
			fmt.Fprintln(stderr, "ghostcheck serve: --mutant:", err)
			return cfg, 2
		}
		cfg.coord.Mutants = impl.Mutants{}.With(m)
	}
	var err error
	if cfg.coord.Topics, err = parseTopics(*topics); err != nil {
		fmt.Fprintln(stderr, "ghostcheck serve:", err)
		return cfg, 2
	}
	return cfg, -1
}

// newMemberJoinTimeoutMs is how long a new classic member has to join
// before it is removed: a constant in Kafka (5 minutes, KAFKA-7610), so
// not a flag.
const newMemberJoinTimeoutMs = 300000

// parseTopics reads "alpha:6,beta:3" and gives each topic a random id.
func parseTopics(s string) ([]impl.Topic, error) {
	var out []impl.Topic
	seen := map[string]bool{}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, count, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err := strconv.Atoi(count)
		if !ok || name == "" || err != nil || n < 0 || n > 100000 {
			return nil, fmt.Errorf("--topics: %q: want NAME:PARTITIONS with 0-100000 partitions", part)
		}
		if seen[name] {
			return nil, fmt.Errorf("--topics: %q named twice", name)
		}
		seen[name] = true
		id, err := model.RandomUUID(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("--topics: an id for %q: %w", name, err)
		}
		out = append(out, impl.Topic{Name: name, ID: id, Partitions: int32(n)})
	}
	return out, nil
}

func ms(v int32) time.Duration { return time.Duration(v) * time.Millisecond }

// serveMutantNames lists impl's planted bugs for serve's help.
func serveMutantNames() string {
	var ns []string
	for _, m := range impl.AllMutants() {
		ns = append(ns, m.Name)
	}
	return strings.Join(ns, ", ")
}

// unservedNote names the apis listed but answered UNSUPPORTED_VERSION.
func unservedNote(unserved map[codec.APIKey]bool) string {
	var ns []string
	for _, a := range codec.AllAPIs() {
		if unserved[a.Key] {
			ns = append(ns, a.Name)
		}
	}
	if len(ns) == 0 {
		return ""
	}
	return "; lists " + strings.Join(ns, " and ") + " but answers UNSUPPORTED_VERSION, as its default configuration does"
}

// parseMigrationPolicy reads a group.consumer.migration.policy by its name
// (model.MigrationPolicy.String, whose numbers impl's policies share).
func parseMigrationPolicy(name string) (impl.MigrationPolicy, bool) {
	for p := model.MigrationOutside; p <= model.MigrationBidirectional; p++ {
		if p.String() == strings.ToLower(name) {
			return impl.MigrationPolicy(p), true
		}
	}
	return 0, false
}
