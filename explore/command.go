package explore

import (
	"fmt"
	"io"
	"os/exec"
	"time"
)

// CommandWorker is a Config.StartWorker that starts the program at path
// with args, a program that runs ServeWorker on its standard input and
// output (the command's hidden explore-worker), with env added to this process's
// environment and its standard error on stderr.
func CommandWorker(path string, args, env []string, stderr io.Writer) func() (io.ReadWriteCloser, error) {
	return func() (io.ReadWriteCloser, error) {
		cmd := exec.Command(path, args...)
		if len(env) > 0 {
			cmd.Env = append(cmd.Environ(), env...)
		}
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
		return &workerCommand{cmd: cmd, in: in, out: out}, nil
	}
}

// workerCommand is a started worker program: Write to its input, Read
// from its output.
type workerCommand struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.ReadCloser
}

func (p *workerCommand) Read(b []byte) (int, error)  { return p.out.Read(b) }
func (p *workerCommand) Write(b []byte) (int, error) { return p.in.Write(b) }

// workerExitWait is how long Close waits for a worker to exit once its
// input is closed (it ends the chunk it is on, milliseconds) before it
// kills it.
const workerExitWait = 10 * time.Second

// Close ends the worker: its input closes and it exits; one that has not
// after workerExitWait is killed.
func (p *workerCommand) Close() error {
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
		return fmt.Errorf("explore: worker %s did not exit %v after its input closed: killed (%v)", p.cmd.Path, workerExitWait, <-done)
	}
}
