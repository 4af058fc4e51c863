package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ghostcheck/ghostcheck/plan"
)

// Schema names the corpus file format; it changes when the format does.
// v2 added parked operations, their releases and ticks (Op.Parked,
// Op.Releases, Op.Tick): WriteFile writes v2 only for a history that has
// them (History.Parks), and SchemaV1 for any other, which v1 describes
// exactly, so that every file written before v2 is written again the
// same. ReadFile reads both.
const Schema = "ghostcheck.history/v2"

// SchemaV1 is the first corpus file format: operations answered by the
// handling that received them, no ticks.
const SchemaV1 = "ghostcheck.history/v1"

// Expect is the verdict a corpus file must reproduce.
type Expect struct {
	Verdict Verdict `json:"verdict"`
	// Rule is the violated rule for Illegal verdicts (e.g. "NoGhosts",
	// "Linearizability").
	Rule string `json:"rule,omitempty"`
	// Linearizable is what the stored history checks to against the model
	// ("Ok", "Illegal"); an invariant violation may come with either.
	Linearizable string `json:"linearizable,omitempty"`
	// Clients, in a recording of client traffic (KindClients), is each
	// client's outcome per rule (PASS, VIOLATED, NOT ADOPTED, -), by the
	// client's label.
	Clients map[string]map[string]string `json:"clients,omitempty"`
}

// FileHeader is the first line of a corpus history file.
type FileHeader struct {
	Schema string `json:"schema"`
	// Kind names what the lines after the header are: "" (as in every
	// file written before kinds existed) a plan's operations, or
	// KindClients a recording of client traffic, which ReadFile refuses
	// (ErrClientRecording).
	Kind string `json:"kind,omitempty"`
	// Target is what the plan ran against: "model", "impl", or an address.
	Target string `json:"target"`
	// Mutant is the impl mutant switched on, if any.
	Mutant string    `json:"mutant,omitempty"`
	Title  string    `json:"title,omitempty"`
	Plan   plan.Plan `json:"plan"`
	Expect Expect    `json:"expect"`
}

// WriteFile writes a corpus history: the header line, then one op per line.
func WriteFile(w io.Writer, hdr FileHeader, h History) error {
	hdr.Schema = SchemaV1
	if h.Parks() {
		hdr.Schema = Schema
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(hdr); err != nil {
		return err
	}
	for _, op := range h {
		if err := enc.Encode(op); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxLine bounds one line of a corpus file (a history op), so a damaged
// file cannot exhaust memory.
const maxLine = 16 << 20

// ReadFile reads a corpus history written by WriteFile.
func ReadFile(r io.Reader) (FileHeader, History, error) {
	var hdr FileHeader
	h, err := readJSONL(r, &hdr, func() error {
		if hdr.Schema != Schema && hdr.Schema != SchemaV1 {
			return fmt.Errorf("history: schema %q, this build reads %q and %q", hdr.Schema, Schema, SchemaV1)
		}
		switch hdr.Kind {
		case "":
		case KindClients:
			return ErrClientRecording
		default:
			return fmt.Errorf("history: kind %q, this build reads plans and %q", hdr.Kind, KindClients)
		}
		return hdr.Plan.Validate()
	}, func(b []byte) (Op, error) {
		var op Op
		err := json.Unmarshal(b, &op)
		return op, err
	})
	return hdr, h, err
}

// readJSONL reads a history file, JSON lines: the first, the header, into
// hdr, which accept then judges (is the rest for this reader?); then every
// non-empty line after it, each decoded as one T. Errors name the line.
// Every history reader goes through here, so all share one line limit
// and one way of saying what is wrong where.
func readJSONL[T any](r io.Reader, hdr any, accept func() error, decode func([]byte) (T, error)) ([]T, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("history: empty file")
	}
	if err := json.Unmarshal(sc.Bytes(), hdr); err != nil {
		return nil, fmt.Errorf("history: header: %w", err)
	}
	if err := accept(); err != nil {
		return nil, err
	}
	var out []T
	for line := 2; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		v, err := decode(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("history: line %d: %w", line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// WritePath creates path (and its directory) and lets write fill it; a
// failed write, or close, is its error. It is how every page and history
// of a report is written: here, and by package report.
func WritePath(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
