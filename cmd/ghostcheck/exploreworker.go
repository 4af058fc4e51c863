package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"time"

	"github.com/ghostcheck/ghostcheck/explore"
)

// `ghostcheck explore-worker`: one worker process of `ghostcheck explore`,
// explore.ServeWorker on standard input and output. explore starts its
// workers so (its --workers, unless --in-process): workers in one Go
// process share its heap and collector, processes only the machine. Not a
// command for people: help does not list it.

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
	return func() (io.ReadWriteCloser, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(exe, exploreWorkerCommand, "--memory", strconv.FormatInt(memory, 10))
		cmd.Stderr = stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &workerProcess{cmd: cmd, in: in, out: out}, nil
	}
}

// workerProcess is a started explore-worker: Write to its input, Read
// from its output.
type workerProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.ReadCloser
}

func (p *workerProcess) Read(b []byte) (int, error)  { return p.out.Read(b) }
func (p *workerProcess) Write(b []byte) (int, error) { return p.in.Write(b) }

// workerExitWait is how long Close waits for a worker to exit once its
// input is closed (it finishes the chunk it is on, a few milliseconds)
// before killing it.
const workerExitWait = 10 * time.Second

// Close ends the worker: its input closes, and it exits; one that has not
// after workerExitWait is killed.
func (p *workerProcess) Close() error {
	_ = p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	t := time.NewTimer(workerExitWait)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		_ = p.cmd.Process.Kill()
		return fmt.Errorf("explore-worker did not exit %v after its input closed: killed (%v)", workerExitWait, <-done)
	}
}
