package linearize

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Op is one request as the coordinator received it, and its response.
type Op struct {
	ID int
	// Client is the index of the process that sent it (the admin and the
	// observer come after the plan's clients); Name is its name.
	Client int
	Name   string
	Conn   Conn
	// ClientID is the ClientId the coordinator must attribute to the
	// request under KIP-1313: the one its connection's first request
	// carried (null reads as "").
	ClientID string
	// At is the coordinator's clock (ms) when the request was delivered.
	At int64
	// Sent is the round in which the client sent the request (it may
	// have been delivered later).
	Sent int
	// Call and Return are logical event times bracketing the target's
	// handling of the request: just before it was handed over, and when
	// the response came back. Return is Unknown when no response came.
	Call, Return int64
	Header       codec.RequestHeader
	Request      codec.Message
	// Response is nil when the outcome is unknown, or when the target
	// refused the request without a response (Refused).
	Response codec.Message
	// Refused: the coordinator answered nothing and applied nothing (a
	// broker closes the connection on a request it does not serve).
	Refused bool
	// Note says what the network did to it (e.g. "response lost").
	Note string
	// Restart marks a coordinator restart rather than a request (Header,
	// Request and Response are empty): it belongs to every partition of
	// the check, since it touches every group's timers.
	Restart bool
}

// restartAPI is what a restart op's "api" reads in a history file.
const restartAPI = "CoordinatorRestart"

// Unknown is the Return of an operation whose outcome is unknown: it may
// take effect at any point after its call (porcupine's +∞).
const Unknown int64 = 1 << 62

// History is every operation of a run, in delivery order.
type History []Op

type opJSON struct {
	ID       int                 `json:"id"`
	Client   int                 `json:"client"`
	Name     string              `json:"name"`
	Conn     uint64              `json:"conn"`
	Host     string              `json:"host"`
	ClientID string              `json:"clientId"`
	At       int64               `json:"at"`
	Sent     int                 `json:"sent"`
	Call     int64               `json:"call"`
	Return   *int64              `json:"return"` // null: unknown
	API      string              `json:"api"`
	Header   codec.RequestHeader `json:"header"`
	Request  json.RawMessage     `json:"request"`
	Response json.RawMessage     `json:"response,omitempty"`
	Refused  bool                `json:"refused,omitempty"`
	Note     string              `json:"note,omitempty"`
	Restart  bool                `json:"restart,omitempty"`
}

// MarshalJSON writes the op with its request and response decoded, so a
// corpus file is readable.
func (o Op) MarshalJSON() ([]byte, error) {
	j := opJSON{ID: o.ID, Client: o.Client, Name: o.Name, Conn: o.Conn.ID, Host: o.Conn.Host, ClientID: o.ClientID,
		At: o.At, Sent: o.Sent, Call: o.Call, API: o.Header.RequestApiKey.String(), Header: o.Header, Refused: o.Refused, Note: o.Note}
	if o.Return != Unknown {
		r := o.Return
		j.Return = &r
	}
	if o.Restart {
		j.API, j.Restart = restartAPI, true
		j.Request = json.RawMessage("null")
		return json.Marshal(j)
	}
	var err error
	if j.Request, err = json.Marshal(o.Request); err != nil {
		return nil, err
	}
	if o.Response != nil {
		if j.Response, err = json.Marshal(o.Response); err != nil {
			return nil, err
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads an op written by MarshalJSON.
func (o *Op) UnmarshalJSON(b []byte) error {
	var j opJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Restart {
		*o = Op{ID: j.ID, Client: j.Client, Name: j.Name, At: j.At, Sent: j.Sent, Call: j.Call, Return: Unknown, Note: j.Note, Restart: true}
		if j.Return != nil {
			o.Return = *j.Return
		}
		return nil
	}
	api := codec.Lookup(j.Header.RequestApiKey)
	if api == nil {
		return fmt.Errorf("op %d: unknown api key %d", j.ID, j.Header.RequestApiKey)
	}
	*o = Op{ID: j.ID, Client: j.Client, Name: j.Name, Conn: Conn{ID: j.Conn, Host: j.Host}, ClientID: j.ClientID,
		At: j.At, Sent: j.Sent, Call: j.Call, Return: Unknown, Header: j.Header, Refused: j.Refused, Note: j.Note}
	if j.Return != nil {
		o.Return = *j.Return
	}
	o.Request = api.NewMessage(false)
	if err := json.Unmarshal(j.Request, o.Request); err != nil {
		return fmt.Errorf("op %d request: %w", j.ID, err)
	}
	if len(j.Response) > 0 && string(j.Response) != "null" {
		o.Response = api.NewMessage(true)
		if err := json.Unmarshal(j.Response, o.Response); err != nil {
			return fmt.Errorf("op %d response: %w", j.ID, err)
		}
	}
	return nil
}

// Schema names the corpus file format; it changes when the format does.
const Schema = "ghostcheck.history/v1"

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
	hdr.Schema = Schema
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
		if hdr.Schema != Schema {
			return fmt.Errorf("history: schema %q, this build reads %q", hdr.Schema, Schema)
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
