package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"

	"github.com/ghostcheck/ghostcheck/explore"
)

// `ghostcheck explore-worker`: one worker process of `ghostcheck explore`,
// explore.ServeWorker on standard input and output. explore starts its
// workers so with --processes: workers in one Go process share its heap
// and collector, processes only the machine. Not a command for people:
// help does not list it.

// exploreWorkerCommand is the hidden subcommand.
const exploreWorkerCommand = "explore-worker"

func runExploreWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(exploreWorkerCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	memory := fs.Int64("memory", 0, "the search's --memory, in bytes (the collector's settings follow it)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	// Ctrl-C reaches the whole process group; the search ends its workers
	// (their input closes) once it has stopped and heard from them.
	signal.Ignore(os.Interrupt)
	defer explore.TuneGC(*memory)()
	if err := explore.ServeWorker(stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "ghostcheck explore-worker:", err)
		return exitFailed
	}
	return 0
}

// exploreWorkerStarter is explore.Config.StartWorker for the command: this
// executable again, as explore-worker, its errors on stderr.
func exploreWorkerStarter(memory int64, stderr io.Writer) func() (io.ReadWriteCloser, error) {
	exe, err := os.Executable()
	if err != nil {
		return func() (io.ReadWriteCloser, error) { return nil, err }
	}
	return explore.CommandWorker(exe, []string{exploreWorkerCommand, "--memory", strconv.FormatInt(memory, 10)}, nil, stderr)
}
