// Command ghostcheck checks that a Kafka group coordinator and its clients
// keep the membership promises of KIP-1082, KIP-1313 and KIP-345.
//
// Usage:
//
//	ghostcheck run [--target impl|model] [--seed N] [--histories N | --duration D] [--workers N] [--failfast]
//	               [--heartbeat-version 1|0|mixed|compare] [--faults KIND=PCT,...] [--mutant NAME] [--json] [--junit FILE] ...
//	ghostcheck check --bootstrap HOST:PORT | --broker-cmd COMMAND [--session-timeout D --heartbeat-interval D]
//	               [--cases A1,B4.2] [--list] [--histories N] [--risky=false] [--known FILE] [--json] [--junit FILE] ...
//	ghostcheck serve [--listen HOST:PORT] [--session-timeout D] [--heartbeat-interval D] [--topics NAME:N,...] ...
//	ghostcheck proxy --upstream HOST:PORT [--listen ADDR] [--duration D] [--faults KIND=PCT,...] [--seed N] [--out DIR]
//	ghostcheck explore [--clients N] [--static N] [--v0 N] [--ops N] [--faults KIND,...] [--max-faults N] [--depth N]
//	               [--protocol consumer] [--workers N] [--memory SIZE] [--shard I/N] [--mutant NAME] [--json] ...
//	ghostcheck replay [--target T | --bootstrap HOST:PORT] [--html [--out DIR]] [--json] FILE|DIR...
//	ghostcheck decode [--response KEY:VERSION] [--strict] [HEX]
//	ghostcheck members list --bootstrap HOST:PORT --group G [--json]
//	ghostcheck members remove --bootstrap HOST:PORT --group G --instance-id A[,B,...] [--reason TEXT]
//	ghostcheck demo
//	ghostcheck version
//	ghostcheck help [COMMAND]
//	ghostcheck explain ID
//
// run is the property run of the embedded coordinator under network faults;
// check holds a broker reached by address to docs/PROTOCOL.md; serve runs
// ghostcheck's coordinator as a Kafka listener; proxy records a client
// library's traffic to a broker, injects faults, and judges the client
// against the client rules; explore searches every reachable state of a
// few reference clients, the model and impl, up to a bound; replay re-runs the histories run and check
// write (and re-checks recordings of clients); decode prints a captured frame as JSON; members lists a
// group's members or removes static members (KIP-345); demo shows the codec
// at work; version prints the build; help prints a command's help; explain
// prints the docs/PROTOCOL.md section of a case name, section id or rule id.
//
// `ghostcheck help COMMAND` and `ghostcheck COMMAND -h` print a command's
// flags. Exit status: 0 checked and all Ok (or -h), 1 a violation or bad
// input, 2 bad usage, 3 (replay) a recorded failure now checks Ok.
//
// The files, a command each and what it prints:
//
//   - main.go: the commands, usage and help; exit.go: the exit statuses and
//     flag parsing every command shares.
//   - run.go: run's flags and summary; runcolumns.go: its columns (the
//     clients' versions, the consumer or classic protocol, the KIPs'
//     controls); runworkers.go: histories checked by workers, counted in
//     seed order; runjunit.go: run's --json and --junit; coverage.go: run
//     --coverage.
//   - brokerflags.go: the flags of every command that dials a broker
//     (--bootstrap, TLS, SASL) and what a refused connection exits with.
//   - check.go: check; checkflags.go: its flags and case selection;
//     checkprotocol.go: the group protocol of its histories;
//     checkjunit.go: its --junit; reportcheck.go: its index and replay's
//     pages.
//   - junit.go: the JUnit XML both write; reportout.go: the failure pages
//     and the run's index.
//   - serve.go, proxy.go, explore.go, replay.go, decode.go, members.go,
//     demo.go, version.go, explain.go: the other commands, a file each;
//     exploreworker.go: explore's worker processes (a hidden command).
package main

import (
	"fmt"
	"io"
	"os"
)

// command is one subcommand: it parses its own flags from args and returns
// the process exit status.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "the main job: check a coordinator with client processes under network faults", runRun},
		{"check", "check a broker over TCP: conformance suite, then fault-injected histories", runCheck},
		{"serve", "serve ghostcheck's coordinator over TCP in Kafka's framing", runServe},
		{"proxy", "record a client library's traffic to a broker, inject faults, and check the client rules", runProxy},
		{"explore", "explore every reachable state of a few clients, the model and impl, up to a bound", runExplore},
		{"replay", "re-run histories (the corpus, run's, check's, proxy's) and check each reproduces its stored verdict", runReplay},
		{"decode", "decode a captured Kafka frame (hex) to JSON", runDecode},
		{"members", "list a group's members, or remove static members by instance id (KIP-345)", runMembers},
		{"demo", "encode and decode a KIP-1082 join to show the codec at work", runDemo},
		{"version", "print ghostcheck's version, the commit it was built from and its Go version", runVersion},
		{"help", "print a command's help (the same as COMMAND -h)", runHelp},
		{"explain", "print the rule a case name, section id or rule id cites (docs/PROTOCOL.md)", runExplain},
	}
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs ghostcheck with args (without the program name) and returns the
// exit status. Tests call it directly.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	if args[0] == exploreWorkerCommand {
		return runExploreWorker(args[1:], stdin, stdout, stderr)
	}
	if c, ok := lookupCommand(args[0]); ok {
		return c.run(args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "ghostcheck: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ghostcheck COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'ghostcheck help COMMAND' (or 'ghostcheck COMMAND -h') for a command's flags,")
	fmt.Fprintln(w, "and 'ghostcheck explain ID' for a rule a report cites (docs/PROTOCOL.md).")
}

// runHelp prints the usage of ghostcheck, or of one command, on stdout: a
// command's help is what it prints for -h, whatever status that returns.
func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	if len(args) > 1 || args[0] == "-h" || args[0] == "--help" {
		w, code := stderr, 2
		if len(args) == 1 {
			w, code = stdout, 0
		}
		fmt.Fprintln(w, "usage: ghostcheck help [COMMAND]")
		fmt.Fprintln(w, "Prints a command's help, the same as 'ghostcheck COMMAND -h'; without COMMAND, the list of commands.")
		return code
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		fmt.Fprintf(stderr, "ghostcheck help: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	c.run([]string{"-h"}, stdin, stdout, stdout)
	return 0
}
