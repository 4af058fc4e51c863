// Command rdmock runs librdkafka's mock cluster on 127.0.0.1, as a broker
// ghostcheck can check:
//
//	rdmock --topics alpha:6,beta:3,gamma:2 --session-timeout 4s --heartbeat-interval 100ms
//
// Its first line on stdout is the bootstrap address (HOST:PORT, one per
// broker, comma-separated), and nothing else is written there, so a program
// can start it and read where to connect: `ghostcheck check --broker-cmd`
// does. What it runs with goes to stderr. It runs until stdin closes (its
// parent went away), SIGINT or SIGTERM; --stdin=false ignores stdin.
//
// A line on stdin is a command to the mock, for a test that plays a
// cluster's faults (the mock numbers its brokers from 1):
//
//	coordinator GROUP BROKER   make BROKER the coordinator of GROUP
//	down BROKER                take BROKER down
//	up BROKER                  bring BROKER back
//
// It answers each on stdout, "ok" or "error: ...", one line.
//
// The mock aborts on some requests (see docs/findings.md's librdkafka findings):
// its process dies with SIGABRT, which is why it runs as a command of its
// own.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/ghostcheck/ghostcheck/peers/librdkafka/mock"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rdmock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg mock.Config
	topics := fs.String("topics", "alpha:6,beta:3,gamma:2", "topics to create, NAME:PARTITIONS, comma-separated")
	fs.IntVar(&cfg.Brokers, "brokers", 1, "mock brokers")
	fs.DurationVar(&cfg.SessionTimeout, "session-timeout", 0, "group.consumer.session.timeout.ms (0: the mock's default, 45s)")
	fs.DurationVar(&cfg.HeartbeatInterval, "heartbeat-interval", 0, "group.consumer.heartbeat.interval.ms (0: the mock's default, 3s)")
	useStdin := fs.Bool("stdin", true, "exit when stdin closes")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rdmock [flags]")
		fmt.Fprintln(stderr, "Runs librdkafka's mock cluster on 127.0.0.1 and prints its bootstrap address on stdout.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	var err error
	if cfg.Topics, err = parseTopics(*topics); err != nil || fs.NArg() > 0 || cfg.Brokers < 1 {
		if err != nil {
			fmt.Fprintln(stderr, "rdmock:", err)
		}
		fs.Usage()
		return 2
	}
	c, err := mock.Start(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "rdmock:", err)
		return 1
	}
	// The cluster is not destroyed on the way out: the process ends, which
	// frees it, and librdkafka's destroy can wait a second for its threads
	// (a check starting a broker per case stops dozens).
	// Signals are caught before the address is printed: a parent that
	// reads it and at once sends SIGTERM gets a clean stop.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	fmt.Fprintln(stdout, c.Bootstrap())
	fmt.Fprintf(stderr, "rdmock: librdkafka %s mock cluster on %s (%d broker(s), topics %s, session timeout %v, heartbeat interval %v)\n",
		mock.LibraryVersion(), c.Bootstrap(), cfg.Brokers, *topics, orDefault(cfg.SessionTimeout.String(), cfg.SessionTimeout == 0), orDefault(cfg.HeartbeatInterval.String(), cfg.HeartbeatInterval == 0))
	closed := make(chan struct{})
	if *useStdin {
		go func() {
			commands(c, stdin, stdout, stderr)
			close(closed)
		}()
	}
	select {
	case s := <-sig:
		fmt.Fprintf(stderr, "rdmock: %v: stopping\n", s)
	case <-closed:
		fmt.Fprintln(stderr, "rdmock: stdin closed: stopping")
	}
	return 0
}

// commands runs the commands on stdin until it closes.
func commands(c *mock.Cluster, stdin io.Reader, stdout, stderr io.Writer) {
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		err := command(c, f)
		if err != nil {
			fmt.Fprintf(stdout, "error: %v\n", err)
			fmt.Fprintf(stderr, "rdmock: %q: %v\n", sc.Text(), err)
			continue
		}
		fmt.Fprintln(stdout, "ok")
	}
}

func command(c *mock.Cluster, f []string) error {
	id := func(s string) (int32, error) {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("broker %q: want an id from 1", s)
		}
		return int32(n), nil
	}
	switch {
	case f[0] == "coordinator" && len(f) == 3:
		b, err := id(f[2])
		if err != nil {
			return err
		}
		return c.SetCoordinator(f[1], b)
	case (f[0] == "down" || f[0] == "up") && len(f) == 2:
		b, err := id(f[1])
		if err != nil {
			return err
		}
		if f[0] == "down" {
			return c.BrokerDown(b)
		}
		return c.BrokerUp(b)
	}
	return fmt.Errorf("unknown command (coordinator GROUP BROKER, down BROKER, up BROKER)")
}

func orDefault(s string, isDefault bool) string {
	if isDefault {
		return "default"
	}
	return s
}

// parseTopics reads NAME:PARTITIONS,...
func parseTopics(s string) ([]mock.Topic, error) {
	var out []mock.Topic
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), ":")
		p, err := strconv.Atoi(n)
		if !ok || name == "" || err != nil || p < 1 || p > 10000 {
			return nil, fmt.Errorf("topic %q: want NAME:PARTITIONS", part)
		}
		if seen[name] {
			return nil, fmt.Errorf("topic %q given twice", name)
		}
		seen[name] = true
		out = append(out, mock.Topic{Name: name, Partitions: p})
	}
	return out, nil
}
