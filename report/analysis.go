package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// event is one line of a failure's story: something that happened at a
// coordinator time, in words.
type event struct {
	At  int64
	Who string
	// Text says what happened; Class colours it: "fault", "violation",
	// "ghost", "restart", "error" or "".
	Text  string
	Class string
	// First marks the first violation, where the story is opened.
	First bool
	// Group is the group the event is about ("" for none); Minor marks
	// what a long story leaves out first (ApiVersions and telemetry).
	Group string
	Minor bool
}

// analysis is what a failure page derives from a run: the story and the
// membership lanes of each group, read off the history (every response
// the coordinator gave, whether or not the client saw it, and every
// ConsumerGroupDescribe) and the violations.
type analysis struct {
	events  []event
	groups  []string
	lanes   map[string][]*lane
	byID    map[string]*lane // group + "/" + member id
	ghosts  map[string]bool
	marks   map[string][]mark // group-wide marks: violations, restarts
	end     int64
	omitted int // routine events left out of the story
	// focus is the group of the first violation ("" when it names none);
	// clientGroup is each client's group, from the plan.
	focus       string
	clientGroup map[string]string

	// known are the member ids each process learned (from a response it
	// received) or sent; current is the id each uses now.
	known   map[string]map[string]bool
	current map[string]string
	// lastCorr is the last correlation id delivered per connection, to
	// find requests the network lost (a gap).
	lastCorr map[uint64]int32
	// present are the members each group's last successful Describe
	// listed.
	present map[string]map[string]bool
}

// analyze walks the history once in delivery order, with the violations
// placed after the operations delivered at or before their time.
func analyze(res *driver.Result, rep *check.Report, ghosts []string) *analysis {
	a := &analysis{lanes: map[string][]*lane{}, byID: map[string]*lane{}, ghosts: map[string]bool{}, marks: map[string][]mark{},
		known: map[string]map[string]bool{}, current: map[string]string{}, lastCorr: map[uint64]int32{}, present: map[string]map[string]bool{}}
	a.groups = res.Plan.Groups()
	a.clientGroup = map[string]string{}
	for _, c := range res.Plan.Clients {
		a.clientGroup[c.Name] = c.Group
	}
	for _, g := range ghostIDs(res, ghosts) {
		a.ghosts[g] = true
	}
	vs := res.Violations
	for i := range res.History {
		op := &res.History[i]
		for len(vs) > 0 && vs[0].At < op.At {
			a.violation(vs[0], len(vs) == len(res.Violations), res.Plan.Groups())
			vs = vs[1:]
		}
		a.end = max(a.end, op.At)
		a.op(op)
		if len(res.Violations) == 0 && op.ID == mismatchOp(rep) {
			a.violation(driver.RoundViolation{Round: op.Sent, At: op.At, Rule: rep.Rule, What: rep.Mismatch}, true, res.Plan.Groups(), op.GroupID())
		}
	}
	for i, v := range vs {
		a.violation(v, i == 0 && len(vs) == len(res.Violations), res.Plan.Groups())
		a.end = max(a.end, v.At)
	}
	a.end += max(res.Plan.RoundMs, 1)
	for _, ls := range a.lanes {
		for _, l := range ls {
			l.close(a.end, "")
		}
	}
	return a
}

// mismatchOp is the operation the model answers differently ("op N
// (...): ..."), -1 if none.
func mismatchOp(rep *check.Report) int {
	var id int
	if _, err := fmt.Sscanf(rep.Mismatch, "op %d", &id); err != nil || rep.Mismatch == "" {
		return -1
	}
	return id
}

// idPattern matches the member ids a violation's words name: a
// broker-made 22-character id or a client-made UUID.
var idPattern = regexp.MustCompile(`member ([A-Za-z0-9_-]{22}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

// ghostIDs are the ghosts the run flagged, or else the members the
// NoGhosts violations name.
func ghostIDs(res *driver.Result, ghosts []string) []string {
	out := append(append([]string(nil), ghosts...), res.Ghosts...)
	for _, v := range res.Violations {
		if v.Rule != string(rules.RuleNoGhosts) {
			continue
		}
		for _, m := range idPattern.FindAllStringSubmatch(v.What, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// violation adds a broken rule to the story and marks its group (every
// group when its words name none).
func (a *analysis) violation(v driver.RoundViolation, first bool, groups []string, group ...string) {
	g := groupIn(v.What, groups)
	if len(group) > 0 && group[0] != "" {
		g = group[0]
	}
	if first {
		a.focus = g
	}
	a.events = append(a.events, event{At: v.At, Who: "checker", Class: "violation", First: first, Group: g,
		Text: fmt.Sprintf("%s broken (round %d): %s", v.Rule, v.Round, v.What)})
	targets := groups
	if g != "" {
		targets = []string{g}
	}
	for _, g := range targets {
		a.marks[g] = append(a.marks[g], mark{At: v.At, Kind: "violation", Text: v.Rule + ": " + v.What})
	}
}

// op reads one operation into the story and the lanes.
func (a *analysis) op(op *history.Op) {
	if op.Restart {
		a.say(op, "restart", "the coordinator restarts: every connection closes, every session timer starts afresh")
		for _, g := range a.groups {
			a.marks[g] = append(a.marks[g], mark{At: op.At, Kind: "restart", Text: "coordinator restart"})
		}
		return
	}
	a.lostBefore(op)
	switch r := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		a.heartbeat(op, r)
	case *codec.ConsumerGroupDescribeRequest:
		a.describe(op)
	case *codec.LeaveGroupRequest:
		a.leaveGroup(op, r)
	default:
		a.other(op)
	}
}

// say adds a story line about op.
func (a *analysis) say(op *history.Op, class, text string) {
	g := op.GroupID()
	if g == "" {
		g = a.clientGroup[op.Name]
	}
	a.events = append(a.events, event{At: op.At, Who: op.Name, Text: text, Class: class, Group: g})
}

// lostBefore finds a request the network lost: a gap in the correlation
// ids of the connection op arrived on (each request on a connection takes
// the next id). Its fault is marked on the lane of the member its process
// held then.
func (a *analysis) lostBefore(op *history.Op) {
	corr := op.Header.CorrelationId
	last, seen := a.lastCorr[op.Conn.ID]
	if corr > last {
		a.lastCorr[op.Conn.ID] = corr
	}
	if !seen || corr <= last+1 || strings.Contains(op.Note, "duplicate") {
		return
	}
	n := corr - last - 1
	what := "request"
	if n > 1 {
		what = fmt.Sprintf("%d requests", n)
	}
	text := fmt.Sprintf("%s's %s on connection %d (correlation %d) never reached the coordinator: lost in the network", op.Name, what, op.Conn.ID, last+1)
	a.say(op, "fault", text)
	if l := a.laneOfProcess(op); l != nil {
		l.mark(op.At, "fault", text)
	}
}

// laneOfProcess is the lane of the member op's process holds now, if any.
func (a *analysis) laneOfProcess(op *history.Op) *lane {
	for _, g := range a.groups {
		if l := a.byID[g+"/"+a.current[op.Name]]; l != nil && l.alive() {
			return l
		}
	}
	return nil
}

// learn records that a process knows a member id.
func (a *analysis) learn(name, id string) {
	if id == "" {
		return
	}
	if a.known[name] == nil {
		a.known[name] = map[string]bool{}
	}
	a.known[name][id] = true
	a.current[name] = id
}
