package explore

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/cputime"
	"github.com/ghostcheck/ghostcheck/model"
)

// Worker processes. With Config.StartWorker the breadth-first search runs
// its workers as processes of their own, as `go test -fuzz` runs its
// fuzzing workers: two workers in one Go process share its heap, its
// allocator and its collector, which once cost them a sixth of what two
// cores gave two independent processes doing the same work; with half
// the allocation per state the two ways run alike on two cores
// (docs/explore.md, Speed). What a search keeps is small and append-only
// (fingerprints and the tree of 8-byte nodes), and a state is rebuilt
// from the root by replay, so each worker process keeps a copy of both
// and is sent, level by level, what the others found:
//
//	search                               worker process (ServeWorker)
//	init     the configuration      ->   builds the root, as the search does
//	         ok                     <-
//	level    the nodes to expand    ->   appended to its copy of the tree;
//	         and every fingerprint       the fingerprints to its copy of
//	         found since the last        the set
//	chunk    tree nodes [from, to)  ->   expands them as a goroutine
//	         the states new to its  <-   worker does (stateAt, expand):
//	         copy, with fingerprint,     lockstep, transition rules, and
//	         parent, event, flags;       the invariants on every state its
//	         transitions; a violation    copy did not hold
//	         with its shortest path
//	end                             ->
//	         clause hits, CPU time  <-
//
// The search owns the one fingerprint set that decides what is new: it
// inserts each chunk's states as they come back (so the progress line
// moves within a level), keeps the new ones in chunk order, and counts
// terminal states and transitions. A state two processes find in one
// level is checked by both (checkState is a function of the state) and
// claimed by the first insert, as with goroutines. Shortest traces stay
// shortest: levels still end together.
//
// Frames are a kind byte, a uvarint length and the payload, lengths
// capped before anything is allocated; a frame that does not parse is an
// error of the search, never a panic.

// Frame kinds.
const (
	frameInit   = 'i' // search -> worker: the configuration (JSON)
	frameLevel  = 'l' // search -> worker: tree nodes and fingerprints
	frameChunk  = 'c' // search -> worker: expand [from, to) at depth
	frameEnd    = 'e' // search -> worker: no more work
	frameOK     = 'k' // worker -> search: the configuration is taken
	frameFailed = 'x' // worker -> search: it is not (the reason)
	frameFound  = 'r' // worker -> search: a chunk's states
	frameDone   = 'h' // worker -> search: clause hits and CPU time
)

// maxFrame caps a frame's payload: a level of 2^26 states and more would
// stop at the memory cap long before.
const maxFrame = 1 << 30

// wire is one end of a worker's pipes.
type wire struct {
	r   *bufio.Reader
	w   *bufio.Writer
	in  []byte // the payload of the last frame read
	out []byte // the payload being written
}

func newWire(r io.Reader, w io.Writer) *wire {
	return &wire{r: bufio.NewReaderSize(r, 64<<10), w: bufio.NewWriterSize(w, 64<<10)}
}

// send writes one frame of payload p and flushes it.
func (c *wire) send(kind byte, p []byte) error {
	var hdr [1 + binary.MaxVarintLen64]byte
	hdr[0] = kind
	n := binary.PutUvarint(hdr[1:], uint64(len(p)))
	if _, err := c.w.Write(hdr[:1+n]); err != nil {
		return err
	}
	if _, err := c.w.Write(p); err != nil {
		return err
	}
	return c.w.Flush()
}

// recv reads one frame; its payload is valid until the next recv. The end
// of the stream before a frame is io.EOF.
func (c *wire) recv() (kind byte, p []byte, err error) {
	if kind, err = c.r.ReadByte(); err != nil {
		return 0, nil, err
	}
	n, err := binary.ReadUvarint(c.r)
	if err != nil {
		return 0, nil, fmt.Errorf("explore: frame %q: its length: %w", kind, noEOF(err))
	}
	if n > maxFrame {
		return 0, nil, fmt.Errorf("explore: frame %q of %d bytes, more than %d", kind, n, maxFrame)
	}
	if uint64(cap(c.in)) < n {
		c.in = make([]byte, n)
	}
	c.in = c.in[:n]
	if _, err := io.ReadFull(c.r, c.in); err != nil {
		return 0, nil, fmt.Errorf("explore: frame %q of %d bytes: %w", kind, n, noEOF(err))
	}
	return kind, c.in, nil
}

// noEOF is err, io.ErrUnexpectedEOF for an end of the stream within a
// frame.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// cursor reads a payload; the first error sticks, and every read after it
// returns zero.
type cursor struct {
	kind byte
	b    []byte
	off  int
	err  error
}

func (c *cursor) fail(what string) {
	if c.err == nil {
		c.err = fmt.Errorf("explore: frame %q: %s at byte %d of %d", c.kind, what, c.off, len(c.b))
	}
}

func (c *cursor) uvarint(what string) uint64 {
	if c.err != nil {
		return 0
	}
	v, n := binary.Uvarint(c.b[c.off:])
	if n <= 0 {
		c.fail(what + ": no uvarint")
		return 0
	}
	c.off += n
	return v
}

// count reads a uvarint count of items of size bytes each, refused when
// the rest of the payload cannot hold them (before anything is allocated).
func (c *cursor) count(what string, size int) int {
	n := c.uvarint(what)
	if c.err == nil && n > uint64((len(c.b)-c.off)/size) {
		c.fail(fmt.Sprintf("%s: %d of %d bytes each", what, n, size))
		return 0
	}
	return int(n)
}

func (c *cursor) u32(what string) uint32 {
	if c.err == nil && len(c.b)-c.off < 4 {
		c.fail(what + ": short")
	}
	if c.err != nil {
		return 0
	}
	v := binary.LittleEndian.Uint32(c.b[c.off:])
	c.off += 4
	return v
}

func (c *cursor) u64(what string) uint64 {
	if c.err == nil && len(c.b)-c.off < 8 {
		c.fail(what + ": short")
	}
	if c.err != nil {
		return 0
	}
	v := binary.LittleEndian.Uint64(c.b[c.off:])
	c.off += 8
	return v
}

func (c *cursor) byte(what string) byte {
	if c.err == nil && c.off >= len(c.b) {
		c.fail(what + ": short")
	}
	if c.err != nil {
		return 0
	}
	c.off++
	return c.b[c.off-1]
}

func (c *cursor) string(what string) string {
	n := c.count(what, 1)
	if c.err != nil {
		return ""
	}
	c.off += n
	return string(c.b[c.off-n : c.off])
}

// end reports the sticky error, or bytes left over.
func (c *cursor) end() error {
	if c.err == nil && c.off != len(c.b) {
		c.fail(fmt.Sprintf("%d bytes left over", len(c.b)-c.off))
	}
	return c.err
}

// wireConfig is the configuration as the init frame carries it: Config's
// fields (its functions stay behind) and its mutants, which Config holds
// as a set without exported fields.
type wireConfig struct {
	Config  Config
	Mutants []impl.Mutant
}

func encodeConfig(cfg *Config) ([]byte, error) {
	wc := wireConfig{Config: *cfg}
	for m := 0; m < 256; m++ {
		if cfg.Mutants.Has(impl.Mutant(m)) {
			wc.Mutants = append(wc.Mutants, impl.Mutant(m))
		}
	}
	return json.Marshal(wc)
}

func decodeConfig(p []byte) (Config, error) {
	var wc wireConfig
	if err := json.Unmarshal(p, &wc); err != nil {
		return Config{}, fmt.Errorf("explore: the configuration frame: %w", err)
	}
	cfg := wc.Config
	cfg.Mutants = impl.Mutants{}
	for _, m := range wc.Mutants {
		cfg.Mutants = cfg.Mutants.With(m)
	}
	return cfg, nil
}

// Violation kinds in a found frame.
const (
	foundNothing = iota
	foundViolation
	foundHarness
)

// ServeWorker is a worker process's main: it takes the configuration and
// the work of one search from r, writes what it finds to w, and returns
// nil when the search lets go of it (the end frame, or r closing), or the
// error that ended it. The command's hidden explore-worker is this on standard
// input and output.
func ServeWorker(r io.Reader, w io.Writer) error {
	c := newWire(r, w)
	kind, p, err := c.recv()
	if err != nil {
		return err
	}
	if kind != frameInit {
		return fmt.Errorf("explore: a worker's first frame is %q, not the configuration", kind)
	}
	cfg, err := decodeConfig(p)
	if err == nil {
		err = cfg.validate()
	}
	if err != nil {
		_ = c.send(frameFailed, []byte(err.Error()))
		return err
	}
	cfg.Workers = 1
	s := &search{cfg: &cfg, hits: model.ClauseHits{}}
	wk := newWorker(&cfg)
	defer wk.dropPath()
	root := wk.root()
	s.seen.insert(wk.fingerprint(root))
	wk.discard(root)
	s.tree.nodes = append(s.tree.nodes, node{})
	if err := c.send(frameOK, nil); err != nil {
		return err
	}
	var reported bool // a violation was sent: the search stops
	for {
		kind, p, err := c.recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch kind {
		case frameLevel:
			if err := s.takeLevel(p); err != nil {
				return err
			}
		case frameChunk:
			cur := cursor{kind: kind, b: p}
			from, to, depth := cur.uvarint("from"), cur.uvarint("to"), cur.uvarint("depth")
			if err := cur.end(); err != nil {
				return err
			}
			if from >= to || to > uint64(len(s.tree.nodes)) || depth > uint64(len(s.tree.nodes)) {
				return fmt.Errorf("explore: chunk [%d, %d) at depth %d of a tree of %d nodes", from, to, depth, len(s.tree.nodes))
			}
			t0 := s.transitions.Load()
			out := s.expandChunk(wk, int(from), int(to), int(depth))
			c.out = appendFound(c.out[:0], s.transitions.Load()-t0, out)
			switch {
			case reported:
				c.out = append(c.out, foundNothing)
			case s.harness != nil:
				c.out = appendString(append(c.out, foundHarness), s.harness.Error())
				reported = true
			case s.found != nil:
				v := s.found
				c.out = appendString(appendString(append(c.out, foundViolation), v.Rule), v.Detail)
				c.out = binary.AppendUvarint(c.out, uint64(len(v.path)))
				for _, e := range v.path {
					c.out = binary.LittleEndian.AppendUint32(c.out, uint32(e))
				}
				reported = true
			default:
				c.out = append(c.out, foundNothing)
			}
			if err := c.send(frameFound, c.out); err != nil {
				return err
			}
		case frameEnd:
			c.out = binary.AppendUvarint(c.out[:0], uint64(cputime.Process()))
			c.out = binary.AppendUvarint(c.out, uint64(len(wk.hits)))
			for cl, n := range wk.hits {
				c.out = binary.AppendUvarint(appendString(c.out, string(cl)), uint64(n))
			}
			return c.send(frameDone, c.out)
		default:
			return fmt.Errorf("explore: a worker got a frame of kind %q", kind)
		}
	}
}

// takeLevel appends a level frame's nodes to the worker's tree and its
// fingerprints to the worker's set.
func (s *search) takeLevel(p []byte) error {
	cur := cursor{kind: frameLevel, b: p}
	at := cur.uvarint("first node")
	if cur.err == nil && at != uint64(len(s.tree.nodes)) {
		return fmt.Errorf("explore: a level's nodes from %d, to a tree of %d", at, len(s.tree.nodes))
	}
	n := cur.count("nodes", 8)
	for range n {
		parent, ev := cur.u32("parent"), event(cur.u32("event"))
		if cur.err == nil && parent >= uint32(len(s.tree.nodes)) {
			return fmt.Errorf("explore: a node's parent %d, in a tree of %d", parent, len(s.tree.nodes))
		}
		s.tree.nodes = append(s.tree.nodes, node{parent: parent, ev: ev})
	}
	for range cur.count("fingerprints", 8) {
		s.seen.insert(cur.u64("fingerprint"))
	}
	return cur.end()
}

// appendFound is a found frame's states.
func appendFound(b []byte, transitions uint64, out []child) []byte {
	b = binary.AppendUvarint(b, transitions)
	b = binary.AppendUvarint(b, uint64(len(out)))
	for _, k := range out {
		b = binary.LittleEndian.AppendUint32(b, k.n.parent)
		b = binary.LittleEndian.AppendUint32(b, uint32(k.n.ev))
		b = binary.LittleEndian.AppendUint64(b, k.fp)
		b = append(b, foundFlags(k))
	}
	return b
}

// A found state's flags.
const (
	flagTerminal = 1 << iota // no event enabled
	flagV0Ghost              // holds a v0 ghost
)

func foundFlags(k child) byte {
	var f byte
	if k.terminal {
		f |= flagTerminal
	}
	if k.v0Ghost {
		f |= flagV0Ghost
	}
	return f
}

// procWorker is a worker process as the search sees it.
type procWorker struct {
	conn io.ReadWriteCloser
	*wire
}

// startWorkers starts n worker processes and hands each the
// configuration.
func (s *search) startWorkers(n int) ([]*procWorker, error) {
	cfgFrame, err := encodeConfig(s.cfg)
	if err != nil {
		return nil, err
	}
	var ps []*procWorker
	for i := range n {
		conn, err := s.cfg.StartWorker()
		if err != nil {
			closeWorkers(ps)
			return nil, fmt.Errorf("explore: starting worker process %d: %w", i, err)
		}
		p := &procWorker{conn: conn, wire: newWire(conn, conn)}
		ps = append(ps, p)
		if err := p.send(frameInit, cfgFrame); err != nil {
			closeWorkers(ps)
			return nil, fmt.Errorf("explore: worker process %d: %w", i, err)
		}
	}
	for i, p := range ps {
		kind, msg, err := p.recv()
		if err == nil && kind != frameOK {
			err = fmt.Errorf("refused the configuration: %s", msg)
		}
		if err != nil {
			closeWorkers(ps)
			return nil, fmt.Errorf("explore: worker process %d: %w", i, err)
		}
	}
	return ps, nil
}

// closeWorkers lets the processes go (their input closes: they end).
func closeWorkers(ps []*procWorker) {
	for _, p := range ps {
		_ = p.conn.Close()
	}
}

// endWorkers ends the processes' work (the search then closes them),
// adding their clause hits to the search's and returning the CPU time
// they spent.
func (s *search) endWorkers(ps []*procWorker) (time.Duration, error) {
	var cpu time.Duration
	for i, p := range ps {
		if err := p.send(frameEnd, nil); err != nil {
			return cpu, fmt.Errorf("explore: worker process %d: %w", i, err)
		}
		kind, msg, err := p.recv()
		if err == nil && kind != frameDone {
			err = fmt.Errorf("answered the end with a frame of kind %q", kind)
		}
		if err != nil {
			return cpu, fmt.Errorf("explore: worker process %d: %w", i, err)
		}
		cur := cursor{kind: kind, b: msg}
		cpu += time.Duration(cur.uvarint("CPU time"))
		for range cur.count("clauses", 2) {
			cl, n := model.Clause(cur.string("clause")), cur.uvarint("hits")
			s.hits[cl] += int(n)
		}
		if err := cur.end(); err != nil {
			return cpu, fmt.Errorf("explore: worker process %d: %w", i, err)
		}
	}
	return cpu, nil
}

// expandLevelProcs is expandLevel on worker processes: each is sent the
// tree nodes and fingerprints it lacks (fps: every one found since the
// last level), then chunks until none is left.
func (s *search) expandLevelProcs(ps []*procWorker, fps []uint64, lo, hi, depth int) []child {
	size := chunkSize(hi-lo, len(ps))
	nchunks := (hi - lo + size - 1) / size
	outs := make([][]child, nchunks)
	level := s.levelFrame(fps, hi)
	var next atomic.Int64
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.send(frameLevel, level); err != nil {
				s.fail(fmt.Errorf("explore: worker process %d: %w", i, err))
				return
			}
			// The chunks sent and not yet answered, oldest first.
			type sent struct{ c, from, to int }
			var queue []sent
			take := func() error {
				c := int(next.Add(1) - 1)
				if s.stop.Load() || c >= nchunks {
					return nil
				}
				from := lo + c*size
				q := sent{c, from, min(from+size, hi)}
				queue = append(queue, q)
				return p.sendChunk(q.from, q.to, depth)
			}
			var err error
			for k := 0; k < inFlight && err == nil; k++ {
				err = take()
			}
			for err == nil && len(queue) > 0 {
				q := queue[0]
				queue = queue[1:]
				var msg []byte
				if msg, err = p.found(); err == nil {
					if err = take(); err == nil { // the next chunk on its way first
						outs[q.c], err = s.takeFound(msg, q.from, q.to)
					}
				}
				s.limits()
			}
			if err != nil {
				s.fail(fmt.Errorf("explore: worker process %d: %w", i, err))
			}
		}()
	}
	wg.Wait()
	var kids []child
	for _, o := range outs {
		kids = append(kids, o...)
	}
	return kids
}

// levelFrame is the level frame every worker is sent (each is sent every
// level, so all have the same tree): the tree's nodes from the first one
// they lack up to hi, and fps.
func (s *search) levelFrame(fps []uint64, hi int) []byte {
	from := s.sentNodes
	b := binary.AppendUvarint(nil, uint64(from))
	b = binary.AppendUvarint(b, uint64(hi-from))
	for _, nd := range s.tree.nodes[from:hi] {
		b = binary.LittleEndian.AppendUint32(b, nd.parent)
		b = binary.LittleEndian.AppendUint32(b, uint32(nd.ev))
	}
	b = binary.AppendUvarint(b, uint64(len(fps)))
	for _, fp := range fps {
		b = binary.LittleEndian.AppendUint64(b, fp)
	}
	s.sentNodes = hi
	return b
}

// inFlight is how many chunks a worker process is sent ahead of their
// answers: the next one waits in its pipe while it works, so that the
// search's turn to read an answer (a wakeup, on cores the workers keep
// busy) costs the worker nothing. Chunk frames are a few bytes: they
// never fill a pipe.
const inFlight = 2

// sendChunk asks worker p to expand tree nodes [from, to) at depth.
func (p *procWorker) sendChunk(from, to, depth int) error {
	p.out = binary.AppendUvarint(p.out[:0], uint64(from))
	p.out = binary.AppendUvarint(p.out, uint64(to))
	p.out = binary.AppendUvarint(p.out, uint64(depth))
	return p.send(frameChunk, p.out)
}

// found reads worker p's answer to its oldest chunk (valid until the next
// read).
func (p *procWorker) found() ([]byte, error) {
	kind, msg, err := p.recv()
	if err != nil {
		return nil, err
	}
	if kind != frameFound {
		return nil, fmt.Errorf("answered a chunk with a frame of kind %q", kind)
	}
	return msg, nil
}

// takeFound reads a found frame from the expansion of tree nodes [from,
// to): it counts the transitions, keeps the states new to the search and
// records a violation or failure.
func (s *search) takeFound(msg []byte, from, to int) ([]child, error) {
	cur := cursor{kind: frameFound, b: msg}
	s.transitions.Add(cur.uvarint("transitions"))
	var kids []child
	for range cur.count("states", 17) {
		k := child{n: node{parent: cur.u32("parent"), ev: event(cur.u32("event"))}, fp: cur.u64("fingerprint")}
		flags := cur.byte("flags")
		k.terminal, k.v0Ghost = flags&flagTerminal != 0, flags&flagV0Ghost != 0
		if cur.err == nil && (k.n.parent < uint32(from) || k.n.parent >= uint32(to)) {
			return nil, fmt.Errorf("explore: a state found from node %d, outside the chunk [%d, %d)", k.n.parent, from, to)
		}
		if cur.err == nil && s.seen.insert(k.fp) {
			if k.terminal {
				s.terminal.Add(1)
			}
			kids = append(kids, k)
		}
	}
	switch cur.byte("violation") {
	case foundNothing:
	case foundHarness:
		if msg := cur.string("failure"); cur.err == nil {
			s.fail(errors.New(msg))
		}
	case foundViolation:
		v := &Violation{Rule: cur.string("rule"), Detail: cur.string("detail")}
		for range cur.count("path", 4) {
			v.path = append(v.path, event(cur.u32("event")))
		}
		if cur.err == nil {
			s.record(v)
		}
	default:
		cur.fail("unknown violation kind")
	}
	return kids, cur.end()
}
