package explore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/impl"
)

// pipeWorker is Config.StartWorker with each worker a goroutine running
// ServeWorker at the other end of two pipes (the operating system's, with
// their buffers, as between processes): the protocol of process.go
// without the processes (testWorkerProcess starts real ones).
func pipeWorker(t *testing.T) func() (io.ReadWriteCloser, error) {
	return pipeServing(t, ServeWorker)
}

// pipeServing is pipeWorker with serve in ServeWorker's place.
func pipeServing(t *testing.T, serve func(io.Reader, io.Writer) error) func() (io.ReadWriteCloser, error) {
	return func() (io.ReadWriteCloser, error) {
		toR, toW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		fromR, fromW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		done := make(chan error, 1)
		go func() {
			err := serve(toR, fromW)
			fromW.Close()
			toR.Close()
			done <- err
		}()
		return &pipeConn{t: t, r: fromR, w: toW, done: done}, nil
	}
}

type pipeConn struct {
	t    *testing.T
	r, w *os.File
	done chan error
}

func (c *pipeConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *pipeConn) Write(b []byte) (int, error) { return c.w.Write(b) }
func (c *pipeConn) Close() error {
	c.w.Close()
	err := <-c.done
	c.r.Close()
	if err != nil {
		c.t.Errorf("worker: %v", err)
	}
	return err
}

// TestWorkerProcessesExploreTheSameSpace: on worker processes the search
// finds the states, transitions, terminal states, v0 ghosts, levels and
// clauses it finds on one worker, for each protocol.
func TestWorkerProcessesExploreTheSameSpace(t *testing.T) {
	classic := twoDynamic()
	classic.Protocol = Classic
	classic.Depth = small(12, 8)
	mixed := static1(small(9, 6))
	mixed.Protocol = Mixed
	shard := static1(small(10, 7))
	shard.Shard, shard.Shards = 1, 3
	v0 := static1(small(10, 7))
	v0.Clients = Clients(2, 1, 1, 1)
	v0.Faults, v0.MaxFaults = LostResponse, 1
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"consumer", static1(small(10, 7))},
		{"classic", classic},
		{"mixed", mixed},
		{"consumer, shard 1 of 3", shard},
		{"consumer, a v0 client, lost answers (v0 ghosts counted)", v0},
	} {
		t.Run(c.name, func(t *testing.T) {
			one, err := Run(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if v0 := c.cfg.Clients[len(c.cfg.Clients)-1].HeartbeatVersion == 0; v0 != (one.V0Ghosts > 0) {
				t.Fatalf("one worker: %d states with a v0 ghost, with a v0 client %v", one.V0Ghosts, v0)
			}
			for _, w := range []struct {
				n     int
				start func() (io.ReadWriteCloser, error)
			}{{2, pipeWorker(t)}, {3, pipeWorker(t)}, {2, testWorkerProcess(t)}} {
				workers := w.n
				cfg := c.cfg
				cfg.Workers, cfg.StartWorker = workers, w.start
				r, s, err := run(t.Context(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if s.processes != workers {
					t.Fatalf("%d workers: the search ran %d worker processes", workers, s.processes)
				}
				if r.States != one.States || r.Transitions != one.Transitions || r.Terminal != one.Terminal ||
					r.V0Ghosts != one.V0Ghosts || r.V0GhostDepth != one.V0GhostDepth ||
					r.Complete != one.Complete || r.DepthBound != one.DepthBound || r.Depth != one.Depth {
					t.Errorf("%d worker processes: %s\none worker:          %s", workers, r.Summary(), one.Summary())
				}
				if !slices.Equal(r.Levels, one.Levels) {
					t.Errorf("%d worker processes: levels %v, one worker %v", workers, r.Levels, one.Levels)
				}
				if !maps.Equal(r.Clauses, one.Clauses) {
					t.Errorf("%d worker processes: clauses %v, one worker %v", workers, r.Clauses, one.Clauses)
				}
				if r.CPU <= 0 || r.MemoryBytes != 3*one.MemoryBytes && workers == 2 {
					t.Errorf("%d worker processes: CPU %v, memory %d (one worker kept %d; each process keeps a copy)", workers, r.CPU, r.MemoryBytes, one.MemoryBytes)
				}
			}
		})
	}
}

// TestWorkerProcessesFindTheShortestTrace: a planted bug of impl is found
// by worker processes at the depth one worker finds it, under the same
// rule, with a trace that replays.
func TestWorkerProcessesFindTheShortestTrace(t *testing.T) {
	var m impl.Mutant
	for _, info := range impl.AllMutants() {
		if info.Name == "leavegroup-member-id-unknown" {
			m = info.Mutant
		}
	}
	cfg := static1(small(8, 6))
	cfg.Mutants = impl.Mutants{}.With(m)
	one, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if one.Violation == nil {
		t.Fatalf("one worker: %s; want the planted bug found", one.Summary())
	}
	cfg.Workers, cfg.StartWorker = 2, pipeWorker(t)
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v := r.Violation
	if v == nil || r.Stopped != "violation" {
		t.Fatalf("worker processes: %s; want the planted bug found", r.Summary())
	}
	if v.Rule != one.Violation.Rule || v.Depth != one.Violation.Depth || len(v.Trace) != v.Depth {
		t.Errorf("worker processes: %s at depth %d (%d steps); one worker: %s at depth %d", v.Rule, v.Depth, len(v.Trace), one.Violation.Rule, one.Violation.Depth)
	}
}

// TestWorkerProcessesStop: a search on worker processes stopped by its
// time limit says so, and lets its workers go (goleak: no goroutine left).
func TestWorkerProcessesStop(t *testing.T) {
	cfg := static1(small(10, 7))
	cfg.Workers, cfg.StartWorker, cfg.TimeLimit = 2, pipeWorker(t), time.Nanosecond
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stopped != "time" || r.Complete {
		t.Errorf("%s; want stopped by the time limit", r.Summary())
	}
}

// TestWorkerProcessThatDies: a worker that ends in the middle of a search
// is the search's error, not a hang and not a pass.
func TestWorkerProcessThatDies(t *testing.T) {
	cfg := static1(small(8, 6))
	cfg.Workers = 2
	started := 0
	cfg.StartWorker = func() (io.ReadWriteCloser, error) {
		if started++; started == 1 {
			return pipeWorker(t)()
		}
		// Takes the configuration, then is gone.
		return pipeServing(t, func(r io.Reader, w io.Writer) error {
			c := newWire(r, w)
			_, _, err := c.recv()
			if err == nil {
				err = c.send(frameOK, nil)
			}
			return err
		})()
	}
	r, err := Run(cfg)
	if err == nil {
		t.Fatalf("a search with a dead worker: %s; want an error", r.Summary())
	}
	if !strings.Contains(err.Error(), "worker process 1") {
		t.Errorf("error %q does not name the worker", err)
	}
}

// TestWorkerRefusesAConfiguration: a configuration the explorer refuses
// is refused by the worker too, and the search says so before exploring.
func TestWorkerRefusesAConfiguration(t *testing.T) {
	var in bytes.Buffer
	c := newWire(nil, &in)
	cfg := Default()
	cfg.Clients = Clients(7, 1, 0, 0)
	p, err := encodeConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.send(frameInit, p); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ServeWorker(&in, &out); err == nil {
		t.Fatal("a worker took seven clients")
	}
	kind, msg, err := newWire(&out, nil).recv()
	if err != nil || kind != frameFailed || !strings.Contains(string(msg), "client") {
		t.Errorf("the worker answered %q %q (%v); want a refusal naming the clients", kind, msg, err)
	}
}

// TestConfigCrossesTheWire: every field of the configuration but its
// functions reaches the worker, mutants included.
func TestConfigCrossesTheWire(t *testing.T) {
	cfg := static1(9)
	cfg.Protocol, cfg.Faults, cfg.MaxFaults, cfg.Partitions = Mixed, AllFaults, 2, 3
	cfg.Mutants = impl.Mutants{}.With(impl.AllMutants()[3].Mutant).With(impl.AllMutants()[70].Mutant)
	cfg.TimeLimit, cfg.MemoryBytes, cfg.Shard, cfg.Shards, cfg.NoSymmetry = time.Minute, 1<<30, 1, 3, true
	cfg.Clients[1].NullOwned, cfg.Clients[0].Regex = true, true
	p, err := encodeConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Describe() != cfg.Describe() || got.Mutants != cfg.Mutants || got.TimeLimit != cfg.TimeLimit ||
		got.MemoryBytes != cfg.MemoryBytes || got.Shard != cfg.Shard || got.Shards != cfg.Shards || got.NoSymmetry != cfg.NoSymmetry ||
		!slices.Equal(got.Clients, cfg.Clients) || got.SessionTimeoutMs != cfg.SessionTimeoutMs {
		t.Errorf("the worker's configuration:\n%+v\nthe search's:\n%+v", got, cfg)
	}
}

// TestFramesRefuseGarbage: a frame cut short or bent returns an error
// naming where, never a panic and never an allocation of what a length
// claims.
func TestFramesRefuseGarbage(t *testing.T) {
	found := appendFound(nil, 3, []child{{n: node{parent: 4, ev: 7}, fp: 99, terminal: true}, {n: node{parent: 4, ev: 8}, fp: 100, v0Ghost: true}})
	found = append(found, foundNothing)
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"no length", []byte{frameFound}, "length"},
		{"huge length", binary.AppendUvarint([]byte{frameFound}, maxFrame+1), "more than"},
		{"cut payload", append(binary.AppendUvarint([]byte{frameFound}, 10), 1, 2), "unexpected EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := newWire(bytes.NewReader(c.in), nil).recv()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("recv: %v; want an error with %q", err, c.want)
			}
		})
	}
	s := &search{cfg: &Config{}}
	if kids, err := s.takeFound(found, 4, 5); err != nil || len(kids) != 2 || s.terminal.Load() != 1 || s.transitions.Load() != 3 ||
		!kids[0].terminal || kids[0].v0Ghost || kids[1].terminal || !kids[1].v0Ghost {
		t.Fatalf("a good found frame: %v, %d states %+v, %d terminal, %d transitions", err, len(kids), kids, s.terminal.Load(), s.transitions.Load())
	}
	for cut := range len(found) {
		s := &search{cfg: &Config{}}
		if _, err := s.takeFound(found[:cut], 4, 5); err == nil || !strings.Contains(err.Error(), "at byte") {
			t.Errorf("found frame cut at %d of %d: %v; want an error saying where", cut, len(found), err)
		}
	}
	if _, err := (&search{cfg: &Config{}}).takeFound(found, 5, 6); err == nil {
		t.Error("a state from outside its chunk was taken")
	}
	huge := binary.AppendUvarint(binary.AppendUvarint(nil, 0), 1<<40)
	if _, err := (&search{cfg: &Config{}}).takeFound(huge, 0, 1); err == nil || !strings.Contains(err.Error(), "states") {
		t.Errorf("a count of 2^40 states: %v", err)
	}
	level := binary.AppendUvarint(binary.AppendUvarint(nil, 1), 1)
	level = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(level, 5), 0)
	level = binary.AppendUvarint(level, 0)
	ws := &search{cfg: &Config{}}
	ws.tree.nodes = []node{{}}
	if err := ws.takeLevel(level); err == nil || !strings.Contains(err.Error(), "parent 5") {
		t.Errorf("a node whose parent is not in the tree: %v", err)
	}
	if err := ws.takeLevel(binary.AppendUvarint(nil, 7)); err == nil {
		t.Error("a level that starts past the tree's end was taken")
	}
	if err := ServeWorker(bytes.NewReader([]byte{frameChunk, 0}), io.Discard); err == nil {
		t.Error("a worker took a chunk before its configuration")
	}
	if err := ServeWorker(bytes.NewReader(nil), io.Discard); !errors.Is(err, io.EOF) {
		t.Errorf("a worker given nothing: %v; want io.EOF", err)
	}
}

// FuzzWorkerFrames: whatever a worker's pipe carries, a worker's reading
// and the search's reading return values or errors, never a panic.
func FuzzWorkerFrames(f *testing.F) {
	f.Add(appendFound(nil, 2, []child{{n: node{parent: 1, ev: 3}, fp: 5}}))
	f.Add(binary.AppendUvarint(binary.AppendUvarint(nil, 1), 0))
	f.Fuzz(func(t *testing.T, p []byte) {
		s := &search{cfg: &Config{}}
		_, _ = s.takeFound(p, 0, 1<<20)
		ws := &search{cfg: &Config{}}
		ws.tree.nodes = []node{{}}
		_ = ws.takeLevel(p)
		_, _ = decodeConfig(p)
		_, _, _ = newWire(bytes.NewReader(p), nil).recv()
	})
}
