// Package clients holds a small KIP-848 consumer built on wire, for checking
// the recording proxy (package proxy) and its client rules: by default it
// keeps every rule (its member id made once, KIP-1313 headers, a static
// leave at -2 with its instance id), and a planted bug (Bug) breaks one, so
// a test can show the proxy's checks catch a client that does. Real client
// libraries are checked against the same rules in this package's tests
// (franz-go's kgo) and in peers/librdkafka (librdkafka's consumer).
package clients

import (
	"crypto/rand"
	"fmt"
	"io"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Bug is a planted client bug.
type Bug string

const (
	// NoBug keeps every client rule.
	NoBug Bug = ""
	// NewIDAfterLostResponse makes a new member id whenever a request's
	// response is lost (the connection broke with it in flight), as a
	// client that treats a lost join as "never joined" would: the first
	// id's member is left behind. StableMemberID catches it.
	NewIDAfterLostResponse Bug = "new-id-after-lost-response"
)

// Config is what a Consumer joins and how.
type Config struct {
	// Bootstrap is a broker (or the proxy) to start from. The consumer
	// asks it for the group's coordinator with FindCoordinator when the
	// broker offers it, else takes it for the coordinator.
	Bootstrap string
	Group     string
	Topics    []string
	ClientID  string
	// InstanceID makes the member static (KIP-345).
	InstanceID string
	Bug        Bug
	// Rand feeds the member and client instance ids (crypto/rand when nil).
	Rand io.Reader
	// Timeout bounds each request (2 s when 0).
	Timeout time.Duration
}

// Consumer is one consumer process: a client instance id and a member id
// made when it is built (KIP-1313, KIP-1082), and one connection to the
// coordinator at a time.
type Consumer struct {
	cfg      Config
	instance codec.UUID
	member   string
	epoch    int32
	owned    []codec.ConsumerGroupHeartbeatTopicPartitions
	report   bool // the next heartbeat acknowledges a new assignment
	conn     *wire.Conn
	hm       *wire.Headers
	hbMax    int16
	// telemetryMax is the GetTelemetrySubscriptions version to use (-1:
	// the coordinator offers none).
	telemetryMax int16
	// Lost counts requests whose response never came.
	Lost int
}

// New builds a consumer; it connects on its first request.
func New(cfg Config) (*Consumer, error) {
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	inst, err := wire.NewInstanceID(cfg.Rand)
	if err != nil {
		return nil, err
	}
	c := &Consumer{cfg: cfg, instance: inst}
	if c.member, err = c.newMemberID(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Consumer) newMemberID() (string, error) {
	u, err := wire.NewInstanceID(c.cfg.Rand) // any random non-zero UUID
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// InstanceID is the client instance id its v2 headers carry.
func (c *Consumer) InstanceID() codec.UUID { return c.instance }

// MemberID is the member id it holds now; Epoch its member epoch (0 while
// joining).
func (c *Consumer) MemberID() string { return c.member }
func (c *Consumer) Epoch() int32     { return c.epoch }

// connect opens a connection to the coordinator: ApiVersions on the
// bootstrap connection, FindCoordinator when offered, then ApiVersions on
// the coordinator's.
func (c *Consumer) connect() error {
	w, hm, vs, err := c.dial(c.cfg.Bootstrap)
	if err != nil {
		return err
	}
	if fv, ferr := vs.Pick(codec.FindCoordinator, 0, 3); ferr == nil {
		resp, err := w.RoundTrip(hm.Next(codec.FindCoordinator, fv), &codec.FindCoordinatorRequest{CoordinatorKey: c.cfg.Group})
		w.Close()
		if err != nil {
			return err
		}
		fc := resp.(*codec.FindCoordinatorResponse)
		if fc.ErrorCode != codec.None {
			return fmt.Errorf("clients: FindCoordinator: %v", fc.ErrorCode)
		}
		if w, hm, vs, err = c.dial(fmt.Sprintf("%s:%d", fc.Host, fc.Port)); err != nil {
			return err
		}
	}
	if c.hbMax, err = vs.Pick(codec.ConsumerGroupHeartbeat, 1, 1); err != nil {
		w.Close()
		return err
	}
	if c.telemetryMax, err = vs.Pick(codec.GetTelemetrySubscriptions, 0, 1); err != nil {
		c.telemetryMax = -1
	}
	c.conn, c.hm = w, hm
	return nil
}

// dial connects to addr and negotiates versions; the connection's first
// request carries ClientId, the later ones null (KIP-1313).
func (c *Consumer) dial(addr string) (*wire.Conn, *wire.Headers, wire.Versions, error) {
	w, err := wire.Dial(addr, wire.Options{Timeout: c.cfg.Timeout})
	if err != nil {
		return nil, nil, nil, err
	}
	hm, err := wire.NewHeaders(codec.Str(c.cfg.ClientID), c.instance)
	if err != nil {
		w.Close()
		return nil, nil, nil, err
	}
	n, err := w.Negotiate(hm, wire.NegotiateOptions{})
	if err != nil {
		w.Close()
		return nil, nil, nil, err
	}
	return w, hm, n.Versions, nil
}

// Close closes the connection without a leave (a crash, to the broker).
func (c *Consumer) Close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// Heartbeat sends the next ConsumerGroupHeartbeat (a join at epoch 0, else
// a heartbeat at its epoch) and absorbs the answer. A lost response
// (wire.ErrNoResponse) closes the connection; the next call reconnects
// and, the outcome being unknown, repeats the join under the same member
// id (or, with NewIDAfterLostResponse, a new one). It returns the answer's
// error code, or the transport error.
func (c *Consumer) Heartbeat() (codec.ErrorCode, error) {
	if c.conn == nil {
		if err := c.connect(); err != nil {
			return 0, err
		}
	}
	req := c.nextRequest()
	resp, err := c.conn.RoundTrip(c.hm.Next(codec.ConsumerGroupHeartbeat, c.hbMax), req)
	if err != nil {
		c.lost()
		return 0, err
	}
	r := resp.(*codec.ConsumerGroupHeartbeatResponse)
	switch r.ErrorCode {
	case codec.None:
		c.epoch = r.MemberEpoch
		if r.Assignment != nil {
			c.owned, c.report = r.Assignment.TopicPartitions, true
		}
	case codec.UnknownMemberID, codec.FencedMemberEpoch:
		// Rejoin under the same id (KIP-1082): the id is the process's.
		c.epoch, c.owned, c.report = 0, nil, false
	}
	return r.ErrorCode, nil
}

// lost handles a request whose response never came.
func (c *Consumer) lost() {
	c.Lost++
	c.Close()
	if c.cfg.Bug == NewIDAfterLostResponse {
		if id, err := c.newMemberID(); err == nil {
			c.member, c.epoch = id, 0
		}
	}
}

func (c *Consumer) nextRequest() *codec.ConsumerGroupHeartbeatRequest {
	req := &codec.ConsumerGroupHeartbeatRequest{GroupId: c.cfg.Group, MemberId: c.member, MemberEpoch: c.epoch, RebalanceTimeoutMs: -1}
	if c.cfg.InstanceID != "" {
		req.InstanceId = codec.Str(c.cfg.InstanceID)
	}
	if c.epoch == 0 {
		req.RebalanceTimeoutMs = 30000
		req.SubscribedTopicNames = c.cfg.Topics
		req.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
	} else if c.report {
		req.TopicPartitions, c.report = c.owned, false
		if req.TopicPartitions == nil {
			req.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
		}
	}
	return req
}

// Leave sends the leave: epoch -2 with the instance id for a static
// member (it will come back), -1 otherwise, under its own member id, then
// closes the connection.
func (c *Consumer) Leave() (codec.ErrorCode, error) {
	if c.conn == nil {
		if err := c.connect(); err != nil {
			return 0, err
		}
	}
	defer c.Close()
	req := &codec.ConsumerGroupHeartbeatRequest{GroupId: c.cfg.Group, MemberId: c.member, MemberEpoch: -1, RebalanceTimeoutMs: -1}
	if c.cfg.InstanceID != "" {
		req.MemberEpoch, req.InstanceId = -2, codec.Str(c.cfg.InstanceID)
	}
	resp, err := c.conn.RoundTrip(c.hm.Next(codec.ConsumerGroupHeartbeat, c.hbMax), req)
	if err != nil {
		return 0, err
	}
	c.epoch = 0
	return resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode, nil
}

// Telemetry asks for the client's telemetry subscription
// (GetTelemetrySubscriptions) at the highest version both sides speak: at
// v1 the id rides only in the header; at v0 the client puts its own
// instance id in the body (KIP-1313, docs/PROTOCOL.md A2).
func (c *Consumer) Telemetry() (codec.ErrorCode, error) {
	if c.conn == nil {
		if err := c.connect(); err != nil {
			return 0, err
		}
	}
	v := c.telemetryMax
	if v < 0 {
		return 0, fmt.Errorf("clients: the coordinator offers no GetTelemetrySubscriptions")
	}
	req := &codec.GetTelemetrySubscriptionsRequest{}
	if v == 0 {
		req.ClientInstanceId = c.instance
	}
	resp, err := c.conn.RoundTrip(c.hm.Next(codec.GetTelemetrySubscriptions, v), req)
	if err != nil {
		c.lost()
		return 0, err
	}
	return resp.(*codec.GetTelemetrySubscriptionsResponse).ErrorCode, nil
}
