package conformance

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Known findings: deviations already recorded against a broker, given to
// `ghostcheck check --known FILE`, so that a check reports them as known
// and reaches past them to whatever else the broker does. The file is
// text, one entry a line:
//
//	# comment (and blank lines)
//	ID  KIND  NAME  [OBSERVED...]
//
// ID names the finding (K1, L3: docs/findings.md); an ID may have
// several lines. KIND and NAME:
//
//   - case NAME: the conformance case NAME is known to fail (or crash the
//     broker). Its FAIL or CRASH is reported as known and does not make the
//     exit status 1. OBSERVED, if given, is text the case's observation must
//     contain: a failure that does not contain it is reported as a new one.
//   - probe KIND: the histories leave out the prober's requests of this
//     kind (plan.ProbeKinds: v1-join-empty-member-id,
//     telemetry-zero-instance-id, telemetry-no-instance-id,
//     stale-heartbeat), so a broker that makes a ghost of, or aborts on, one
//     of them is checked on everything else.
//   - rule RULE: violations of RULE (a rule id of docs/PROTOCOL.md Part C)
//     are the known finding's, and a history whose only violations are
//     such is KNOWN rather than Illegal. OBSERVED, if given, must be in the
//     violation's detail: the observable check's own rules
//     (ObservableResponse, MemberVanished, MonotonicEpochs) set aside each
//     violation that matches and go on to the next, the driver's
//     invariants are judged by their first violation.
//   - workaround NAME: ghostcheck's requests avoid a known crash (see
//     Workarounds), so the cases and histories get past it.
//
// OBSERVED is a note for probe and workaround lines.

// KnownKind is what a known-finding line names.
type KnownKind string

const (
	KnownCase       KnownKind = "case"
	KnownProbe      KnownKind = "probe"
	KnownRule       KnownKind = "rule"
	KnownWorkaround KnownKind = "workaround"
)

// KnownEntry is one line of a known-findings file.
type KnownEntry struct {
	ID       string    `json:"id"`
	Kind     KnownKind `json:"kind"`
	Name     string    `json:"name"`
	Observed string    `json:"observed,omitempty"`
	Line     int       `json:"line"`
}

// Known is a known-findings file, parsed.
type Known struct {
	Entries []KnownEntry
}

// Workaround is a change to ghostcheck's own requests that keeps a broker
// from crashing on something every client sends, recorded as a finding.
type Workaround struct {
	Name string
	// Does says what changes on the wire.
	Does string
	// apply makes the change to one request.
	apply func(*codec.RequestHeader, codec.Message) codec.Message
}

// WorkaroundJoinRegex applies to joins and changes of subscription.
// librdkafka's mock cluster aborts on a join whose
// SubscribedTopicNames is set and whose regex is null, which is what the
// Java client sends (docs/findings.md's L1); "" subscribes to nothing more. The
// case B4.2/join-null-regex-allowed still sends null.
const WorkaroundJoinRegex = "join-regex-empty"

// WorkaroundPushMetrics: librdkafka's mock cluster aborts on metrics that
// do not decode as OTLP (docs/findings.md's L4), and the histories' clients push
// a few bytes that do not.
const WorkaroundPushMetrics = "push-metrics-empty"

// WorkaroundClassicNotFlexible: librdkafka's mock cluster advertises
// JoinGroup v6 and SyncGroup v4, the first flexible versions, but reads
// them as the versions before: it closes the connection on a JoinGroup v6
// (docs/findings.md's L19) and may crash on a SyncGroup v4 (L20). The
// classic cases send JoinGroup at v5 and SyncGroup at v3 at most.
const WorkaroundClassicNotFlexible = "classic-not-flexible"

// Workarounds lists every workaround a known file may name: the one place
// a name meets what it does.
func Workarounds() []Workaround {
	return []Workaround{
		{WorkaroundJoinRegex, `heartbeats that name topics send SubscribedTopicRegex "" instead of null`, joinRegexEmpty},
		{WorkaroundPushMetrics, "PushTelemetry requests carry no metrics", pushMetricsEmpty},
		{WorkaroundClassicNotFlexible, "the classic cases send JoinGroup at v5 and SyncGroup at v3 at most (the histories are not rewritten)", nil},
	}
}

// rewrite is the workarounds in effect, as a TCP target's Rewrite (nil:
// none).
func (k *Known) rewrite() func(*codec.RequestHeader, codec.Message) codec.Message {
	var fs []func(*codec.RequestHeader, codec.Message) codec.Message
	for _, w := range Workarounds() {
		if k.Workaround(w.Name) && w.apply != nil {
			fs = append(fs, w.apply)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return func(h *codec.RequestHeader, req codec.Message) codec.Message {
		for _, f := range fs {
			req = f(h, req)
		}
		return req
	}
}

// knownViolation reports whether a violation of rule, described by what,
// is a known finding's.
func (k *Known) knownViolation(rule, what string) bool {
	_, ok := k.violationOf(rule, what)
	return ok
}

// violationOf is the first entry of rule whose OBSERVED text what
// contains (or that has none): a rule may have several findings, each
// its own violations.
func (k *Known) violationOf(rule, what string) (KnownEntry, bool) {
	for e := range k.of(KnownRule) {
		if e.Name == rule && (e.Observed == "" || strings.Contains(what, e.Observed)) {
			return e, true
		}
	}
	return KnownEntry{}, false
}

// setAside is knownViolation for check.Options (nil without
// known rules).
func (k *Known) setAside() func(rule, what string) bool {
	if len(k.Of(KnownRule)) == 0 {
		return nil
	}
	return k.knownViolation
}

// LoadKnown reads the known-findings file at path (check --known, and the
// tests that hold a broker to its recorded findings). Its errors name the
// file and, for what is in it, the line.
func LoadKnown(path string) (*Known, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError names the file
	}
	defer f.Close()
	return parseKnown(f, path)
}

// ParseKnown reads a known-findings file. Every case, probe, rule and
// workaround it names must exist: a typo is an error, not a finding that
// silently never matches.
func ParseKnown(r io.Reader) (*Known, error) { return parseKnown(r, "known findings") }

// parseKnown is ParseKnown, its errors naming the file as name.
func parseKnown(r io.Reader, name string) (*Known, error) {
	k := &Known{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("%s, line %d: want ID KIND NAME [OBSERVED], got %q", name, n, line)
		}
		e := KnownEntry{ID: f[0], Kind: KnownKind(f[1]), Name: f[2], Line: n}
		// The rest of the line, as written (inner spaces kept).
		rest := strings.TrimSpace(line[len(f[0]):])
		rest = strings.TrimSpace(rest[len(f[1]):])
		e.Observed = strings.TrimSpace(rest[len(f[2]):])
		if err := checkEntry(e); err != nil {
			return nil, fmt.Errorf("%s, line %d: %w", name, n, err)
		}
		k.Entries = append(k.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s, after line %d: %w", name, n, err)
	}
	return k, nil
}

func checkEntry(e KnownEntry) error {
	switch e.Kind {
	case KnownCase:
		if !slices.ContainsFunc(Cases(), func(c Case) bool { return c.Name == e.Name }) {
			return fmt.Errorf("no conformance case is named %q", e.Name)
		}
	case KnownProbe:
		if !slices.Contains(plan.ProbeKinds(), plan.ProbeKind(e.Name)) {
			return fmt.Errorf("no probe is named %q (probes: %v)", e.Name, plan.ProbeKinds())
		}
	case KnownRule:
		if !slices.ContainsFunc(rules.All(), func(r rules.Info) bool { return string(r.ID) == e.Name }) {
			return fmt.Errorf("no rule is named %q", e.Name)
		}
	case KnownWorkaround:
		if !slices.ContainsFunc(Workarounds(), func(w Workaround) bool { return w.Name == e.Name }) {
			return fmt.Errorf("no workaround is named %q", e.Name)
		}
	default:
		return fmt.Errorf("kind %q: want case, probe, rule or workaround", e.Kind)
	}
	return nil
}

// find is the entry of kind naming name, if any.
func (k *Known) find(kind KnownKind, name string) (KnownEntry, bool) {
	for e := range k.of(kind) {
		if e.Name == name {
			return e, true
		}
	}
	return KnownEntry{}, false
}

// of yields the entries of a kind, in file order (none from a nil Known:
// a check without --known).
func (k *Known) of(kind KnownKind) iter.Seq[KnownEntry] {
	return func(yield func(KnownEntry) bool) {
		if k == nil {
			return
		}
		for _, e := range k.Entries {
			if e.Kind == kind && !yield(e) {
				return
			}
		}
	}
}

// Case is the finding recorded for a case, if any.
func (k *Known) Case(name string) (KnownEntry, bool) { return k.find(KnownCase, name) }

// Probe is the finding whose probe kind the histories leave out, if any.
func (k *Known) Probe(kind plan.ProbeKind) (KnownEntry, bool) {
	return k.find(KnownProbe, string(kind))
}

// Rule is the finding recorded for a history rule, if any.
func (k *Known) Rule(rule string) (KnownEntry, bool) { return k.find(KnownRule, rule) }

// Workaround reports whether the workaround named is in effect.
func (k *Known) Workaround(name string) bool {
	_, ok := k.find(KnownWorkaround, name)
	return ok
}

// Of lists the entries of a kind, in file order.
func (k *Known) Of(kind KnownKind) []KnownEntry { return slices.Collect(k.of(kind)) }

// Mismatches holds a check's results to the known findings, for a test
// that keeps a broker's findings recorded: every case listed that ran must
// have failed (or crashed) as recorded, and no case may fail that is not
// listed. Each line says what does not match.
func (k *Known) Mismatches(rs []Result) []string {
	var out []string
	for _, r := range rs {
		switch e, listed := k.Case(r.Name); {
		case listed && r.Known == "" && r.Status == Skip && strings.HasPrefix(r.Observed, needsCluster):
			// A finding of a cluster, checked against one broker.
		case listed && r.Known == "":
			out = append(out, fmt.Sprintf("%s: known finding %s (recorded %q) does not reproduce: %s %s", r.Name, e.ID, e.Observed, r.Status, r.Observed))
		case !listed && r.Failed():
			out = append(out, fmt.Sprintf("%s: new finding: %s %s; expected %s", r.Name, r.Status, r.Observed, r.Expected))
		}
	}
	return out
}
