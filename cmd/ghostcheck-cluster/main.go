// Command ghostcheck-cluster runs a cluster of kfake brokers (franz-go's
// in-process fake Kafka) on this machine, for trying ghostcheck check,
// ghostcheck proxy and a client against several brokers whose group
// coordinators differ, without a Kafka installation:
//
//	ghostcheck-cluster                      # three brokers on 127.0.0.1:9092-9094
//	ghostcheck check --bootstrap 127.0.0.1:9092 --session-timeout 2s --heartbeat-interval 200ms
//
// Its first line on stdout is the bootstrap addresses, comma-separated,
// and nothing else is written there, so a program can start it and read
// where to connect (ghostcheck check --broker-cmd does). What it runs with
// goes to stderr. It runs until SIGINT or SIGTERM, or until stdin closes
// with --stdin.
//
// --tls-dir DIR makes a throwaway certificate authority in DIR and serves
// TLS (ghostcheck check --tls-ca DIR/ca.pem); --sasl-mechanism and
// --sasl-user enable SASL with the password from --sasl-password-file or
// GHOSTCHECK_SASL_PASSWORD. --move-every D moves every group's coordinator
// every D (kfake's RehashCoordinators), to watch clients follow.
//
// It is a command of its own, not a flag of ghostcheck serve: kfake (with
// franz-go's generated protocol code) would add megabytes to every
// ghostcheck binary for a test cluster most runs never start, and
// ghostcheck serve is ghostcheck's own coordinator, which a fake cluster
// is not. Its dependency is the main module's test dependency already, so
// the module gains none.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/internal/pki"
	"github.com/ghostcheck/ghostcheck/wire"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil)) }

// passwordEnv is where the SASL password may come from (never a flag).
const passwordEnv = "GHOSTCHECK_SASL_PASSWORD"

// config is what the command was asked to run.
type config struct {
	brokers           int
	host              string
	port              int
	topics            string
	sessionTimeout    time.Duration
	heartbeatInterval time.Duration
	maxGroupSize      int
	tlsDir            string
	mechanism, user   string
	pwFile            string
	moveEvery         time.Duration
	stdin             bool
}

// run runs the command; stop, when set, ends it instead of a signal (tests).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, stop <-chan struct{}) int {
	cfg, code := parse(args, stderr)
	if code >= 0 {
		return code
	}
	opts, notes, err := cfg.options()
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck-cluster:", err)
		return 2
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck-cluster:", err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	fmt.Fprintln(stdout, strings.Join(c.ListenAddrs(), ","))
	fmt.Fprintf(stderr, "ghostcheck-cluster: %d kfake brokers on %s (topics %s; session timeout %v, heartbeat interval %v)\n",
		cfg.brokers, strings.Join(c.ListenAddrs(), ","), cfg.topics, cfg.sessionTimeout, cfg.heartbeatInterval)
	for _, n := range notes {
		fmt.Fprintln(stderr, "  "+n)
	}
	fmt.Fprintf(stderr, "  try: ghostcheck check --bootstrap %s --session-timeout %v --heartbeat-interval %v%s\n",
		c.ListenAddrs()[0], cfg.sessionTimeout, cfg.heartbeatInterval, cfg.checkFlags())
	closed := make(chan struct{})
	if cfg.stdin {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			close(closed)
		}()
	}
	var tick <-chan time.Time
	if cfg.moveEvery > 0 {
		t := time.NewTicker(cfg.moveEvery)
		defer t.Stop()
		tick = t.C
	}
	defer c.Close()
	for {
		select {
		case <-tick:
			c.RehashCoordinators()
		case s := <-sig:
			fmt.Fprintf(stderr, "ghostcheck-cluster: %v: stopping\n", s)
			return 0
		case <-closed:
			fmt.Fprintln(stderr, "ghostcheck-cluster: stdin closed: stopping")
			return 0
		case <-stop:
			return 0
		}
	}
}

func parse(args []string, stderr io.Writer) (config, int) {
	fs := flag.NewFlagSet("ghostcheck-cluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.IntVar(&cfg.brokers, "brokers", 3, "brokers in the cluster")
	fs.StringVar(&cfg.host, "host", "127.0.0.1", "the address the brokers listen on")
	fs.IntVar(&cfg.port, "port", 9092, "the first broker's port; the others follow it (0: ports the system picks)")
	fs.StringVar(&cfg.topics, "topics", "alpha:6,beta:3,gamma:2", "topics to create, NAME:PARTITIONS, comma-separated")
	fs.DurationVar(&cfg.sessionTimeout, "session-timeout", 2*time.Second, "group.consumer.session.timeout.ms (give check the same)")
	fs.DurationVar(&cfg.heartbeatInterval, "heartbeat-interval", 200*time.Millisecond, "group.consumer.heartbeat.interval.ms (give check the same)")
	fs.IntVar(&cfg.maxGroupSize, "max-group-size", 0, "group.consumer.max.size (0: no limit)")
	fs.StringVar(&cfg.tlsDir, "tls-dir", "", "serve TLS with a throwaway certificate authority written to `DIR` (ca.pem: --tls-ca; client.pem, client-key.pem)")
	fs.StringVar(&cfg.mechanism, "sasl-mechanism", "", "enable SASL with `MECHANISM` PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (with --sasl-user)")
	fs.StringVar(&cfg.user, "sasl-user", "", "the SASL `USER` (a superuser)")
	fs.StringVar(&cfg.pwFile, "sasl-password-file", "", "a `FILE` holding the SASL password; else "+passwordEnv)
	fs.DurationVar(&cfg.moveEvery, "move-every", 0, "move every group's coordinator this often (0: never)")
	fs.BoolVar(&cfg.stdin, "stdin", false, "also stop when stdin closes (for ghostcheck check --broker-cmd)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck-cluster [flags]")
		fmt.Fprintln(stderr, "Runs kfake brokers on this machine and prints their bootstrap addresses on stdout.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	switch {
	case fs.NArg() > 0:
		fs.Usage()
		return cfg, 2
	case cfg.brokers < 1 || cfg.brokers > 64:
		fmt.Fprintln(stderr, "ghostcheck-cluster: --brokers: want 1 to 64")
		return cfg, 2
	case cfg.port < 0 || cfg.port > 65535-cfg.brokers:
		fmt.Fprintln(stderr, "ghostcheck-cluster: --port out of range")
		return cfg, 2
	case cfg.sessionTimeout <= 0 || cfg.heartbeatInterval <= 0 || cfg.moveEvery < 0 || cfg.maxGroupSize < 0:
		fmt.Fprintln(stderr, "ghostcheck-cluster: --session-timeout and --heartbeat-interval must be positive, --move-every and --max-group-size not negative")
		return cfg, 2
	case (cfg.mechanism == "") != (cfg.user == ""):
		fmt.Fprintln(stderr, "ghostcheck-cluster: --sasl-mechanism and --sasl-user go together")
		return cfg, 2
	}
	return cfg, -1
}

// options are kfake's options for cfg, and what to tell the user of them.
func (cfg config) options() ([]kfake.Opt, []string, error) {
	conf := map[string]string{
		"group.consumer.session.timeout.ms":    strconv.FormatInt(cfg.sessionTimeout.Milliseconds(), 10),
		"group.consumer.heartbeat.interval.ms": strconv.FormatInt(cfg.heartbeatInterval.Milliseconds(), 10),
	}
	if cfg.maxGroupSize > 0 {
		// kfake reads group.max.size for consumer groups too.
		conf["group.consumer.max.size"], conf["group.max.size"] = strconv.Itoa(cfg.maxGroupSize), strconv.Itoa(cfg.maxGroupSize)
	}
	opts := []kfake.Opt{kfake.NumBrokers(cfg.brokers), kfake.BrokerConfigs(conf)}
	if cfg.port > 0 {
		ports := make([]int, cfg.brokers)
		for i := range ports {
			ports[i] = cfg.port + i
		}
		opts = append(opts, kfake.Ports(ports...))
	}
	if cfg.host != "127.0.0.1" {
		host := cfg.host
		opts = append(opts, kfake.ListenFn(func(network, addr string) (net.Listener, error) {
			_, port, _ := net.SplitHostPort(addr)
			return net.Listen(network, net.JoinHostPort(host, port))
		}))
	}
	for _, t := range strings.Split(cfg.topics, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(t), ":")
		p, err := strconv.Atoi(n)
		if !ok || name == "" || err != nil || p < 1 || p > 10000 {
			return nil, nil, fmt.Errorf("--topics: %q: want NAME:PARTITIONS", t)
		}
		opts = append(opts, kfake.SeedTopics(int32(p), name))
	}
	var notes []string
	if cfg.tlsDir != "" {
		if err := os.MkdirAll(cfg.tlsDir, 0o700); err != nil {
			return nil, nil, err
		}
		p, err := pki.Make(cfg.tlsDir)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, kfake.TLS(p.ServerConfig(false)))
		notes = append(notes, fmt.Sprintf("TLS: the CA is %s (--tls-ca); a client certificate, if wanted, %s and %s", p.CAFile, p.CertFile, p.KeyFile))
	}
	if cfg.mechanism != "" {
		pw, err := cfg.password()
		if err != nil {
			return nil, nil, err
		}
		s := &wire.SASL{Mechanism: cfg.mechanism, User: cfg.user, Password: pw}
		if err := s.Check(); err != nil {
			return nil, nil, err
		}
		opts = append(opts, kfake.EnableSASL(), kfake.Superuser(strings.ToUpper(cfg.mechanism), cfg.user, pw.Reveal()))
		notes = append(notes, fmt.Sprintf("SASL: %s, user %s (the password is not printed)", strings.ToUpper(cfg.mechanism), cfg.user))
	}
	if cfg.moveEvery > 0 {
		notes = append(notes, fmt.Sprintf("every group's coordinator moves every %v", cfg.moveEvery))
	}
	return opts, notes, nil
}

// password reads the SASL password: the file, or the environment; both or
// neither is an error.
func (cfg config) password() (wire.Secret, error) {
	env := os.Getenv(passwordEnv)
	switch {
	case cfg.pwFile != "" && env != "":
		return wire.Secret{}, fmt.Errorf("two passwords: --sasl-password-file and %s; give one", passwordEnv)
	case cfg.pwFile != "":
		return wire.ReadSecretFile(cfg.pwFile)
	case env != "":
		return wire.NewSecret(env), nil
	}
	return wire.Secret{}, fmt.Errorf("--sasl-mechanism needs a password: --sasl-password-file FILE, or %s", passwordEnv)
}

// checkFlags are the security flags ghostcheck check needs for this
// cluster (the password's source left to the user).
func (cfg config) checkFlags() string {
	var b strings.Builder
	if cfg.tlsDir != "" {
		fmt.Fprintf(&b, " --tls-ca %s", filepath.Join(cfg.tlsDir, "ca.pem"))
	}
	if cfg.mechanism != "" {
		fmt.Fprintf(&b, " --sasl-mechanism %s --sasl-user %s --sasl-password-file FILE", strings.ToUpper(cfg.mechanism), cfg.user)
	}
	return b.String()
}
