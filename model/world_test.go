package model_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"sort"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// A world is one coordinator and the client processes a test runs against
// it, with no network in between: each request is handled at once, and its
// response is delivered at once or lost (the only fault). Because the
// harness sees every response, delivered or not, it knows exactly which
// member ids belong to which process and when each session was last
// refreshed, so the invariants' Process values are exact, not estimates.
type world struct {
	t        rapid.TB
	coord    *model.Coordinator
	cfg      model.Config
	procs    []*proc
	nextConn uint64
	// lastClient is, per member id, the ClientId and host of the last
	// successful join or heartbeat for it: what ConsumerGroupDescribe must
	// show.
	lastClient map[string][2]string
}

// proc is one client process and what the harness knows of it.
type proc struct {
	name   string
	client *client.Client
	conn   *client.Conn
	connID uint64
	host   string
	first  bool // the next request is its connection's first
	// allIDs are the member ids of every successful heartbeat response
	// to this process, delivered or lost, and its own.
	allIDs []string
	// lastRefresh is the coordinator time of the last successful join or
	// heartbeat (epoch >= 0): the one that set its session deadline. -1
	// when none.
	lastRefresh int64
}

func newWorld(t rapid.TB, cfg model.Config) *world {
	return &world{t: t, coord: model.NewCoordinator(cfg), cfg: cfg, nextConn: 1, lastClient: map[string][2]string{}}
}

// seededReader is a deterministic io.Reader for client UUIDs.
func seededReader(seed uint64) io.Reader {
	var key [32]byte
	for i := range key {
		key[i] = byte(seed >> (8 * (i % 8)))
	}
	return rand.NewChaCha8(key)
}

// spawn starts a process and negotiates versions on its first connection.
func (w *world) spawn(cfg client.Config, seed uint64) *proc {
	w.t.Helper()
	cfg.Rand = seededReader(seed)
	c, err := client.New(cfg)
	if err != nil {
		w.t.Fatalf("client.New: %v", err)
	}
	p := &proc{name: cfg.ClientID, client: c, lastRefresh: -1}
	if id := c.MemberID(); id != "" {
		p.allIDs = []string{id}
	}
	w.procs = append(w.procs, p)
	w.connect(p)
	return p
}

// connect gives p a fresh connection; its first request is ApiVersions.
func (w *world) connect(p *proc) {
	w.t.Helper()
	p.conn, p.connID, p.first = &client.Conn{}, w.nextConn, true
	p.host = fmt.Sprintf("/10.0.%d.%d", p.connID/256, p.connID%256)
	w.nextConn++
	req, v := p.client.ApiVersionsRequest()
	p.client.OnApiVersions(w.send(p, req, v).(*codec.ApiVersionsResponse))
}

// reconnect resets p's connection (KIP-1313: the next request carries
// ClientId again).
func (w *world) reconnect(p *proc) {
	w.t.Helper()
	w.coord.Disconnect(p.connID)
	w.connect(p)
}

// send delivers one request from p: the header the client builds must keep
// KIP-1313 (rules.CheckRequestHeader), and the response must encode at the
// request's version.
func (w *world) send(p *proc, req codec.Message, version int16) codec.Message {
	w.t.Helper()
	h := p.client.Header(p.conn, req.Key(), version)
	if err := rules.CheckRequestHeader(&h, p.client.InstanceID(), p.client.Config().ClientID, p.first); err != nil {
		w.t.Fatalf("%s: %v", p.name, err)
	}
	p.first = false
	resp, err := w.coord.Handle(model.Conn{ID: p.connID, Host: p.host}, &h, req)
	if err != nil {
		w.t.Fatalf("%s: Handle(%v v%d): %v", p.name, h.RequestApiKey, version, err)
	}
	if _, err := resp.AppendTo(nil, version); err != nil {
		w.t.Fatalf("%s: %v v%d response does not encode: %v", p.name, h.RequestApiKey, version, err)
	}
	return resp
}

// sendHeartbeat sends a join, heartbeat or leave and records what the
// harness learns from the response, whether or not the client sees it.
func (w *world) sendHeartbeat(p *proc, req *codec.ConsumerGroupHeartbeatRequest, v int16) *codec.ConsumerGroupHeartbeatResponse {
	w.t.Helper()
	resp := w.send(p, req, v).(*codec.ConsumerGroupHeartbeatResponse)
	if resp.ErrorCode == codec.None && resp.MemberId.Valid {
		if !contains(p.allIDs, resp.MemberId.Value) {
			p.allIDs = append(p.allIDs, resp.MemberId.Value)
			sort.Strings(p.allIDs)
		}
		if req.MemberEpoch >= 0 {
			p.lastRefresh = w.coord.Now()
			w.lastClient[resp.MemberId.Value] = [2]string{p.client.Config().ClientID, p.host}
		}
	}
	return resp
}

// heartbeat runs the client's next join or heartbeat; lost drops the
// response on its way back.
func (w *world) heartbeat(p *proc, lost bool) *codec.ConsumerGroupHeartbeatResponse {
	w.t.Helper()
	req, v := p.client.NextHeartbeat()
	resp := w.sendHeartbeat(p, req, v)
	if lost {
		p.client.OnHeartbeatLost()
	} else {
		p.client.OnHeartbeat(resp)
	}
	return resp
}

// leave sends the client's leave (epoch -1, or -2 for a temporary static
// leave); the client completes it whatever becomes of the response.
func (w *world) leave(p *proc, temporary bool) *codec.ConsumerGroupHeartbeatResponse {
	w.t.Helper()
	req, v := p.client.Leave(temporary)
	resp := w.sendHeartbeat(p, req, v)
	p.client.OnLeaveDone()
	return resp
}

// close ends p the orderly way: the leave Close asks for, if any, is sent.
func (w *world) close(p *proc) *codec.ConsumerGroupHeartbeatResponse {
	w.t.Helper()
	req, v := p.client.Close()
	if req == nil {
		return nil
	}
	return w.sendHeartbeat(p, req, v)
}

func (w *world) crash(p *proc) { p.client.Crash() }

// process is what the invariants need to know of p. InFlight is always
// empty here: a response is delivered at once or never.
func (w *world) process(p *proc) rules.Process {
	st := p.client.State()
	mp := rules.Process{
		Name:             p.name,
		GroupID:          p.client.Config().GroupID,
		ClientInstanceID: p.client.InstanceID(),
		MemberID:         p.client.MemberID(),
		Live:             st != client.Closed,
		Left:             st == client.Left || st == client.Leaving,
		Joined:           st == client.Joined,
		AllIDs:           append([]string(nil), p.allIDs...),
	}
	if p.lastRefresh >= 0 {
		mp.GraceUntil = p.lastRefresh + w.cfg.SessionTimeoutMs
	}
	return mp
}

func (w *world) observation() rules.Observation {
	o := rules.Observation{Now: w.coord.Now(), Groups: w.coord.Snapshot()}
	for _, p := range w.procs {
		o.Processes = append(o.Processes, w.process(p))
	}
	return o
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// sameParts compares two partition lists as sets of (topic id, partition).
func sameParts(a, b []codec.ConsumerGroupHeartbeatTopicPartitions) bool {
	set := func(l []codec.ConsumerGroupHeartbeatTopicPartitions) map[string]bool {
		out := map[string]bool{}
		for _, t := range l {
			for _, p := range t.Partitions {
				out[fmt.Sprint(t.TopicId, p)] = true
			}
		}
		return out
	}
	return reflect.DeepEqual(set(a), set(b))
}
