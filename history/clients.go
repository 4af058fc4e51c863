package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// A history file holds one of two kinds of record, named by the header's
// "kind". Without one (every file written before kinds existed) it is a
// plan and the operations it produced (FileHeader, Op). KindClients is a
// recording of real client traffic made by the proxy (ghostcheck proxy):
// a ClientFileHeader, then one rules.ClientRequest per line. Both share
// the schema; a reader meeting a kind it does not know refuses the file.

// KindClients is the kind of a recording of client traffic; the suffix
// versions the record.
const KindClients = "clients/v1"

// ErrClientRecording is ReadFile's error for a recording of client traffic
// (KindClients): read it with ReadClientFile.
var ErrClientRecording = errors.New("history: a recording of client traffic (kind " + KindClients + "); read it with ReadClientFile")

// ClientFileHeader is the first line of a recording of client traffic.
type ClientFileHeader struct {
	Schema string `json:"schema"`
	Kind   string `json:"kind"`
	// Target is the upstream broker the proxy forwarded to (its bootstrap
	// address), Title what was recorded.
	Target string `json:"target"`
	Title  string `json:"title,omitempty"`
	// Faults and Seed are the proxy's fault injection, when it had any.
	Faults string `json:"faults,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
	// Expect is the verdict the recording must check to again: Illegal
	// and the first violated rule when a client broke one, and each
	// client's outcome per rule (Clients).
	Expect Expect `json:"expect"`
}

// ClientExpect is the verdict of a recording from its clients' results:
// Illegal with the first violated rule of the first client that broke
// one, else Ok; Clients holds every outcome.
func ClientExpect(results []rules.ClientResult) Expect {
	e := Expect{Verdict: Ok, Clients: map[string]map[string]string{}}
	for _, c := range results {
		m := map[string]string{}
		for _, r := range c.Results {
			m[string(r.Rule)] = string(r.Outcome)
		}
		e.Clients[c.Client] = m
		if f := c.First(); f != nil && e.Verdict == Ok {
			e.violated(f.Rule)
		}
	}
	return e
}

// violated makes e Illegal under rule.
func (e *Expect) violated(rule rules.Rule) { e.Verdict, e.Rule = Illegal, string(rule) }

type clientRequestJSON struct {
	Conn          uint64              `json:"conn"`
	Broker        string              `json:"broker"`
	Seq           int                 `json:"seq"`
	At            int64               `json:"at"`
	Answered      int64               `json:"answered,omitempty"`
	API           string              `json:"api"`
	HeaderVersion int16               `json:"headerVersion"`
	Header        codec.RequestHeader `json:"header"`
	Request       json.RawMessage     `json:"request,omitempty"`
	Response      json.RawMessage     `json:"response,omitempty"`
	Fault         string              `json:"fault,omitempty"`
}

// marshalClientRequest writes one recorded request with its bodies decoded,
// so a recording is readable.
func marshalClientRequest(r *rules.ClientRequest) ([]byte, error) {
	j := clientRequestJSON{Conn: r.Conn, Broker: r.Broker, Seq: r.Seq, At: r.At, Answered: r.Answered, API: r.API, HeaderVersion: r.HeaderVersion,
		Header: r.Header, Fault: r.Fault}
	if j.API == "" {
		j.API = r.Header.RequestApiKey.String()
	}
	var err error
	if r.Request != nil {
		if j.Request, err = json.Marshal(r.Request); err != nil {
			return nil, err
		}
	}
	if r.Response != nil {
		if j.Response, err = json.Marshal(r.Response); err != nil {
			return nil, err
		}
	}
	return json.Marshal(j)
}

// unmarshalClientRequest reads one line written by marshalClientRequest.
// Bodies are read for the apis codec implements; another api's body (there
// is none in a proxy's recording) is an error.
func unmarshalClientRequest(b []byte) (rules.ClientRequest, error) {
	var j clientRequestJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return rules.ClientRequest{}, err
	}
	r := rules.ClientRequest{Conn: j.Conn, Broker: j.Broker, Seq: j.Seq, At: j.At, Answered: j.Answered, API: j.API, HeaderVersion: j.HeaderVersion,
		Header: j.Header, Fault: j.Fault}
	body := func(raw json.RawMessage, response bool) (codec.Message, error) {
		if len(raw) == 0 || string(raw) == "null" {
			return nil, nil
		}
		api := codec.Lookup(j.Header.RequestApiKey)
		if api == nil {
			return nil, fmt.Errorf("a body for api key %d, which this build does not decode", j.Header.RequestApiKey)
		}
		m := api.NewMessage(response)
		return m, json.Unmarshal(raw, m)
	}
	var err error
	if r.Request, err = body(j.Request, false); err != nil {
		return r, fmt.Errorf("request: %w", err)
	}
	if r.Response, err = body(j.Response, true); err != nil {
		return r, fmt.Errorf("response: %w", err)
	}
	return r, nil
}

// WriteClientFile writes a recording of client traffic: the header line
// (its schema and kind set here), then one request per line.
func WriteClientFile(w io.Writer, hdr ClientFileHeader, reqs []rules.ClientRequest) error {
	hdr.Schema, hdr.Kind = SchemaV1, KindClients
	bw := bufio.NewWriter(w)
	line, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	bw.Write(append(line, '\n'))
	for i := range reqs {
		line, err := marshalClientRequest(&reqs[i])
		if err != nil {
			return fmt.Errorf("request %d: %w", i, err)
		}
		bw.Write(append(line, '\n'))
	}
	return bw.Flush()
}

// ReadClientFile reads a recording written by WriteClientFile.
func ReadClientFile(r io.Reader) (ClientFileHeader, []rules.ClientRequest, error) {
	var hdr ClientFileHeader
	reqs, err := readJSONL(r, &hdr, func() error {
		if hdr.Schema != Schema && hdr.Schema != SchemaV1 || hdr.Kind != KindClients {
			return fmt.Errorf("history: schema %q kind %q, this reader takes %q kind %q", hdr.Schema, hdr.Kind, SchemaV1, KindClients)
		}
		return nil
	}, unmarshalClientRequest)
	return hdr, reqs, err
}
