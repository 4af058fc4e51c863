package history

import (
	"encoding/json"
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
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
	// the response came back. Return is Never when no response came.
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
	// Fault, on a Restart op, names the cluster fault it was, when it
	// was not a restart of a coordinator standing alone: a coordinator
	// move or a broker stopped or started (plan.ClusterFaultKind). Every
	// group a moved coordinator held is loaded again from the log by the
	// next one, with its sessions started afresh: for the check, a
	// restart of those groups' coordinator (docs/PROTOCOL.md B4.5).
	Fault string
	// Route, in a cluster, is how the request reached the broker that
	// answered it (nil: a broker standing alone, or a history written
	// before clusters).
	Route *Route

	// Parked: the coordinator held the request (a classic JoinGroup or
	// SyncGroup waiting for its group, or a request behind one on its
	// connection): Handle answered nothing, and the answer came when
	// another operation, a timer or a restart released it (that one's
	// Releases list this op). Handled is then the event at which Handle
	// returned, and Return, Response and Note are the release's: Return
	// stays Never while no answer came, or when the coordinator dropped
	// the request (Response nil).
	Parked  bool
	Handled int64
	// Releases are the ids of the parked operations this one released,
	// in the order the coordinator answered (or dropped) them: a
	// request's handling, a restart, or a tick.
	Releases []int
	// Tick marks a coordinator event that released parked operations
	// without a request (Header, Request and Response are empty): its
	// clock moved (TickAdvance) or a connection closed (TickDisconnect,
	// Conn names it). Group is the group whose operations it released: a
	// tick belongs to that group's partition of the check, and an event
	// that released operations of several groups is recorded as one tick
	// per group.
	Tick  TickKind
	Group string
}

// TickKind is what a tick operation records (Op.Tick).
type TickKind string

// The ticks.
const (
	// TickAdvance: the coordinator's clock moved to At and its timers
	// released operations.
	TickAdvance TickKind = "advance"
	// TickDisconnect: a connection with a parked operation closed.
	TickDisconnect TickKind = "disconnect"
)

// Event reports whether the op is a coordinator event (a restart or a
// tick) rather than a request.
func (o *Op) Event() bool { return o.Restart || o.Tick != "" }

// HandledAt is when the target returned from handling the op: Handled for
// a parked op, Return for any other. The check orders operations by
// [Call, HandledAt]: a parked op took effect when it was handled; its
// answer is judged where it was released.
func (o *Op) HandledAt() int64 {
	if o.Parked {
		return o.Handled
	}
	return o.Return
}

// Parks reports whether the history holds any parked operation or tick:
// whether it needs Schema rather than the first schema to be written.
func (h History) Parks() bool {
	for i := range h {
		if h[i].Parked || h[i].Tick != "" || len(h[i].Releases) > 0 {
			return true
		}
	}
	return false
}

// Conn names the connection a request travels on. A reset connection gets
// a new id; with Plan.ReuseConnIDs that may be the id of a connection that
// closed before (Disconnect told the target first), as a broker keying
// connections by socket sees them, so a target must drop a closed
// connection's context at Disconnect.
type Conn struct {
	ID uint64
	// Host is the client's address as the coordinator reports it in
	// ConsumerGroupDescribe (ClientHost), e.g. "/10.0.0.3".
	Host string
	// Delivery is the driver's number for the delivery of one request,
	// unique in a run (1, 2, ...): a target that parks a request
	// (driver.Parker) names it by this number when it releases the
	// answer. A history does not keep it (an Op's Conn has none): the
	// check numbers the deliveries it replays itself.
	Delivery uint64
}

// restartAPI and tickAPI are what a restart's and a tick's "api" read in
// a history file.
const (
	restartAPI = "CoordinatorRestart"
	tickAPI    = "CoordinatorTick"
)

// Never is the Return of an operation whose outcome is unknown: it may
// take effect at any point after its call (porcupine's +∞).
const Never int64 = 1 << 62

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
	Fault    string              `json:"fault,omitempty"`
	Route    *Route              `json:"route,omitempty"`
	Parked   bool                `json:"parked,omitempty"`
	Handled  int64               `json:"handled,omitempty"`
	Releases []int               `json:"releases,omitempty"`
	Tick     TickKind            `json:"tick,omitempty"`
	Group    string              `json:"group,omitempty"`
}

// MarshalJSON writes the op with its request and response decoded, so a
// corpus file is readable.
func (o Op) MarshalJSON() ([]byte, error) {
	j := opJSON{ID: o.ID, Client: o.Client, Name: o.Name, Conn: o.Conn.ID, Host: o.Conn.Host, ClientID: o.ClientID,
		At: o.At, Sent: o.Sent, Call: o.Call, API: o.Header.RequestApiKey.String(), Header: o.Header, Refused: o.Refused, Note: o.Note,
		Fault: o.Fault, Route: o.Route, Parked: o.Parked, Releases: o.Releases, Tick: o.Tick, Group: o.Group}
	if o.Parked {
		j.Handled = o.Handled
	}
	if o.Return != Never {
		r := o.Return
		j.Return = &r
	}
	if o.Restart || o.Tick != "" {
		j.API, j.Restart = restartAPI, o.Restart
		if o.Tick != "" {
			j.API = tickAPI
		}
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
	if j.Restart || j.Tick != "" {
		*o = Op{ID: j.ID, Client: j.Client, Name: j.Name, At: j.At, Sent: j.Sent, Call: j.Call, Return: Never, Note: j.Note, Restart: j.Restart, Fault: j.Fault,
			Releases: j.Releases, Tick: j.Tick, Group: j.Group}
		if j.Tick == TickDisconnect {
			o.Conn = Conn{ID: j.Conn, Host: j.Host}
		}
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
		At: j.At, Sent: j.Sent, Call: j.Call, Return: Never, Header: j.Header, Refused: j.Refused, Note: j.Note, Route: j.Route,
		Parked: j.Parked, Handled: j.Handled, Releases: j.Releases}
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

// GroupID is the group an operation is about: the one group its request
// names, or a tick's Group; "" for any other (ApiVersions, telemetry, a
// Describe of several groups, a restart).
func (o *Op) GroupID() string {
	if o.Tick != "" {
		return o.Group
	}
	g, _ := codec.GroupOf(o.Request)
	return g
}
