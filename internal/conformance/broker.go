package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// A Launched broker is one a Launcher started: where it listens, and what
// became of it.
type Launched interface {
	Addr() string
	// Stop stops it (and waits for it to be gone).
	Stop()
	// Exit says how its process ended ("" while it runs, or when it was
	// not a process), and the last lines it wrote to stderr: what a
	// crashed broker said as it died.
	Exit() (status, stderr string)
}

// Launcher starts a fresh broker. check uses one (--broker-cmd) to go on
// after a broker stops answering: every case from then on gets a broker of
// its own, so one abort does not hide the rest of the table.
type Launcher func() (Launched, error)

// CommandLauncher runs command with sh -c; its first line on stdout is the
// broker's bootstrap address (as rdmock prints it), and it must run until
// its stdin closes or SIGTERM. Stop closes its stdin, sends SIGTERM to its
// process group, and SIGKILL if it is still there after three seconds.
// Stop returns in bounded time even when a process the command started
// outside its group still holds stdout or stderr open: the pipes are
// closed pipeWaitDelay after the command itself exits.
func CommandLauncher(command string) Launcher {
	return func() (Launched, error) { return startCommand(command) }
}

// Stop's bounds: how long a broker has to go once its stdin closes, and
// once it is sent SIGTERM; and how long the output pipes are read after the
// process exits (a grandchild in a session of its own, out of reach of the
// group's signals, may hold them for ever, and exec.Cmd.Wait would wait for
// it).
const (
	stdinGrace    = 500 * time.Millisecond
	termGrace     = 3 * time.Second
	pipeWaitDelay = 2 * time.Second
)

type cmdBroker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	addr   string
	done   chan struct{}
	mu     sync.Mutex
	stderr bytes.Buffer
	status string
}

func (b *cmdBroker) Addr() string { return b.addr }

func (b *cmdBroker) Exit() (string, string) {
	select {
	case <-b.done:
	case <-time.After(200 * time.Millisecond): // a dying process may still be writing
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.status, lastLines(b.stderr.String(), 3)
}

// Write keeps the process's stderr (the tail is what Exit reports).
func (b *cmdBroker) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stderr.Len() > 64<<10 {
		tail := append([]byte(nil), b.stderr.Bytes()[b.stderr.Len()-16<<10:]...)
		b.stderr.Reset()
		b.stderr.Write(tail)
	}
	return b.stderr.Write(p)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func startCommand(command string) (*cmdBroker, error) {
	b := &cmdBroker{done: make(chan struct{})}
	b.cmd = exec.Command("sh", "-c", command)
	// A process group of its own, so Stop reaches what sh started too.
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b.cmd.WaitDelay = pipeWaitDelay
	b.cmd.Stderr = b
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if b.stdin, err = b.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("broker command: %w", err)
	}
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		s, _ := r.ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, r)
	}()
	go func() {
		err := b.cmd.Wait()
		b.mu.Lock()
		switch {
		case err == nil:
			b.status = "exited 0"
		case errors.Is(err, exec.ErrWaitDelay):
			b.status = "exited 0, leaving a process that held its output open"
		default:
			b.status = err.Error()
		}
		b.mu.Unlock()
		close(b.done)
	}()
	select {
	case b.addr = <-line:
	case <-time.After(30 * time.Second):
	}
	if b.addr == "" {
		b.Stop()
		st, errs := b.Exit()
		return nil, fmt.Errorf("broker command %q printed no address (%s): %s", command, st, errs)
	}
	// A comma-separated list (several mock brokers): the first is enough
	// to bootstrap from.
	b.addr, _, _ = strings.Cut(b.addr, ",")
	return b, nil
}

// Stop asks politely (stdin closes), then signals the process group. It
// returns once Wait has: at most stdinGrace + termGrace after the call,
// plus pipeWaitDelay when something outside the group holds the output.
func (b *cmdBroker) Stop() {
	_ = b.stdin.Close()
	if b.waitDone(stdinGrace) {
		return
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGTERM)
	if b.waitDone(termGrace) {
		return
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	// SIGKILL cannot be ignored: the process is gone at once, and Wait
	// returns at most pipeWaitDelay later.
	<-b.done
}

// waitDone reports whether the process was waited for within d.
func (b *cmdBroker) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-b.done:
		return true
	case <-t.C:
		return false
	}
}

// Broker is where a check sends its cases and histories: a broker reached
// by address and, with a Launcher, fresh ones after it stops answering.
// Until a crash every case and history goes to the same broker; after
// one, each gets a fresh broker of its own (a broker that aborted on one
// case may abort on the next, and the table should show every case).
type Broker struct {
	launch  Launcher
	timeout time.Duration

	bootstrap []string
	current   Launched // launched by us (nil: given by address)
	fresh     bool     // a broker per case from now on
	// negotiation is the first broker's ApiVersions, which every later
	// Run reuses.
	negotiation *wire.Negotiation
	// unserved are the apis the first broker lists but answered
	// UNSUPPORTED_VERSION to, and held the release it is held to: both
	// settled with the negotiation.
	unserved map[codec.APIKey]bool
	held     *Holding
	// Launches counts the brokers started.
	Launches int
}

// NewBroker returns the broker (or cluster) at the bootstrap addresses,
// or, when there are none, one launch starts now. launch may be nil (a
// crash then ends the check). timeout bounds the check that a broker
// still answers (0: 3 s).
func NewBroker(bootstrap []string, launch Launcher, timeout time.Duration) (*Broker, error) {
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	b := &Broker{bootstrap: bootstrap, launch: launch, timeout: timeout}
	if len(bootstrap) == 0 {
		if launch == nil {
			return nil, errors.New("conformance: a broker needs an address or a launcher")
		}
		if err := b.start(); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Addr is the first bootstrap address of the broker in use now.
func (b *Broker) Addr() string {
	if len(b.bootstrap) == 0 {
		return ""
	}
	return b.bootstrap[0]
}

// Bootstrap are the bootstrap addresses of the broker in use now.
func (b *Broker) Bootstrap() []string { return b.bootstrap }

// Fresh reports whether every case now gets a broker of its own.
func (b *Broker) Fresh() bool { return b.fresh }

func (b *Broker) start() error {
	if b.current != nil {
		b.current.Stop()
		b.current = nil
	}
	l, err := b.launch()
	if err != nil {
		return err
	}
	b.current, b.bootstrap = l, []string{l.Addr()}
	b.Launches++
	return nil
}

// next is the broker for the next case or history: a fresh one once the
// first stopped answering.
func (b *Broker) next() ([]string, error) {
	if b.fresh {
		if err := b.start(); err != nil {
			return nil, fmt.Errorf("starting a fresh broker: %w", err)
		}
	}
	return b.bootstrap, nil
}

// crashed records that the broker stopped answering, and reports whether
// there will be another (a launcher).
func (b *Broker) crashed() bool {
	if b.launch == nil {
		return false
	}
	b.fresh = true
	return true
}

// exit is how the current broker's process ended and its last words ("",
// "" for a broker given by address).
func (b *Broker) exit() (string, string) {
	if b.current == nil {
		return "", ""
	}
	return b.current.Exit()
}

// Close stops the broker launched last.
func (b *Broker) Close() {
	if b.current != nil {
		b.current.Stop()
		b.current = nil
	}
}

// alive checks that the broker at addr still answers: a new connection
// (made by d: TLS, SASL) and an ApiVersions v0 round trip (which every
// broker answers) within the broker's timeout. The error says how it did
// not.
func (b *Broker) alive(ctx context.Context, d wire.Dialer, addr string) error {
	d.Timeout = b.timeout
	hm, err := wire.NewHeaders(codec.Str("ghostcheck-alive"), probeInstance)
	if err != nil {
		return err
	}
	w, _, err := d.Dial(ctx, addr, hm)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := w.RoundTrip(hm.Next(codec.ApiVersions, 0), &codec.ApiVersionsRequest{}); err != nil {
		if errors.Is(err, wire.ErrConnClosed) {
			return errors.New("ApiVersions v0 on a new connection: the connection closed unanswered")
		}
		return fmt.Errorf("ApiVersions v0 on a new connection: %w", err)
	}
	return nil
}

// allAlive checks that every broker at addrs still answers (alive); the
// error names the first that does not.
func (b *Broker) allAlive(ctx context.Context, d wire.Dialer, addrs []string) error {
	for _, a := range addrs {
		if err := b.alive(ctx, d, a); err != nil {
			if len(addrs) > 1 {
				return fmt.Errorf("the broker at %s: %w", a, err)
			}
			return err
		}
	}
	return nil
}
