// Command ghostcheck checks that a Kafka group coordinator and its clients
// keep the membership promises of KIP-1082, KIP-1313 and KIP-345.
//
// Usage:
//
//	ghostcheck run [--target impl|model] [--seed N] [--histories N | --duration D] ...
//	ghostcheck replay FILE|DIR...
//	ghostcheck decode [--response KEY:VERSION] [--strict] [HEX]
//	ghostcheck demo
//
// Every subcommand prints its own flags with -h. Exit status: 0 success, 1 a
// check failed or the input was bad, 2 bad usage.
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
		{"replay", "re-run corpus histories and check each reproduces its stored verdict", runReplay},
		{"members", "list a group's members, or remove static members by instance id (KIP-345)", runMembers},
		{"demo", "encode and decode a KIP-1082 join to show the codec at work", runDemo},
		{"decode", "decode a captured Kafka frame (hex) to JSON", runDecode},
		{"serve", "serve ghostcheck's coordinator over TCP in Kafka's framing", runServe},
		{"check", "check a broker over TCP: conformance suite, then fault-injected histories", runCheck},
	}
}

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs ghostcheck with args (without the program name) and returns the
// exit status. Tests call it directly.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
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
	fmt.Fprintln(w, "Run 'ghostcheck COMMAND -h' for a command's flags.")
}
