package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// Exit statuses, the same for every command: a script can tell "checked
// and fine" from "found something" from "I called it wrong".
const (
	// exitOK: everything asked was checked, and all of it is Ok.
	exitOK = 0
	// exitFailed: a violation, a failing case, a history not Ok, or bad
	// input (a file that does not read, a frame that does not decode, a
	// broker that cannot be reached).
	exitFailed = 1
	// exitUsage: bad usage (an unknown flag or value, a missing
	// argument); nothing was checked.
	exitUsage = 2
	// exitFixed (replay): no history failed, and some recorded a failure
	// that now checks Ok: its bug is fixed, and the file no longer shows
	// what it says.
	exitFixed = 3
	// exitInternal (check): nothing failed, but ghostcheck could not build
	// some request of its own (a case is ERROR): a bug of ghostcheck, which
	// says nothing of the broker.
	exitInternal = 4
)

// parseFlags parses args into fs and returns the exit status to end with,
// or -1 to go on: 0 after -h (help asked for is not an error), 2 after a
// flag that does not parse (the flag package has said why).
func parseFlags(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	return -1
}

// usageErr prints a usage error once, prefixed with the command's name,
// and returns exitUsage.
func usageErr(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "ghostcheck %s: %s\n", cmd, fmt.Sprintf(format, args...))
	return exitUsage
}

// durationFlag names a duration flag and its value, for validation.
type durationFlag struct {
	name string
	d    time.Duration
}

// negativeDuration returns the first flag whose duration is negative.
func negativeDuration(flags ...durationFlag) (durationFlag, bool) {
	for _, f := range flags {
		if f.d < 0 {
			return f, true
		}
	}
	return durationFlag{}, false
}
