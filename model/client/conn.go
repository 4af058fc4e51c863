package client

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Conn is the client's side of one connection: it knows whether the
// connection has carried a request yet (KIP-1313: ClientId on the first
// request only). A reset connection is a new Conn.
type Conn struct {
	sent int
}

// Fresh reports whether no request was built on the connection yet.
func (c *Conn) Fresh() bool { return c.sent == 0 }

// Header builds the header of the next request on conn: a fresh
// correlation id, ClientId on the connection's first request only, and the
// client instance id in tag 0 whenever the header is v2.
func (c *Client) Header(conn *Conn, key codec.APIKey, version int16) codec.RequestHeader {
	c.corr++
	h := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: c.corr}
	if conn.sent == 0 || c.cfg.ClientIDEveryRequest {
		h.ClientId = codec.Str(c.ids.clientID)
	}
	conn.sent++
	if hv, err := codec.RequestHeaderVersion(key, version); err == nil && hv >= 2 {
		h.ClientInstanceId = codec.SomeUUID(c.ids.instanceID)
	}
	return h
}

// ApiVersionsRequest is the first request a client sends on a connection.
func (c *Client) ApiVersionsRequest() (*codec.ApiVersionsRequest, int16) {
	return &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck-model", ClientSoftwareVersion: "1.0"}, 4
}

// OnApiVersions negotiates: the client uses, per api, the lower of its own
// highest version and the broker's. Each negotiation starts again from the
// client's own highest versions, so a newer broker is spoken to at them.
func (c *Client) OnApiVersions(resp *codec.ApiVersionsResponse) {
	if resp.ErrorCode != codec.None {
		return
	}
	// Every connection asks, and a broker answers the same list each
	// time: it is kept, not copied, when it is the one held (clones share
	// it, Clone). A new list is made anew, never written over.
	if !slices.EqualFunc(c.maxSeen, resp.ApiKeys, sameVersions) {
		c.maxSeen = slices.Clone(resp.ApiKeys)
	}
	c.hbVersion, c.lgVersion = c.cfg.HeartbeatVersion, maxLeaveGroupVersion
	if m, ok := c.BrokerMaxVersion(codec.ConsumerGroupHeartbeat); ok && m < c.hbVersion {
		c.hbVersion = m
	}
	if m, ok := c.BrokerMaxVersion(codec.LeaveGroup); ok && m < c.lgVersion {
		c.lgVersion = m
	}
}

// maxLeaveGroupVersion is the highest LeaveGroup version the client speaks.
const maxLeaveGroupVersion = 5

// BrokerMaxVersion is the broker's highest version of key as last
// negotiated, and whether it advertised key at all.
func (c *Client) BrokerMaxVersion(key codec.APIKey) (int16, bool) {
	for i := len(c.maxSeen) - 1; i >= 0; i-- { // the last entry of a key listed twice
		if c.maxSeen[i].ApiKey == key {
			return c.maxSeen[i].MaxVersion, true
		}
	}
	return 0, false
}

// sameVersions reports whether two entries of a broker's list give one api
// the same versions (all the client reads of them).
func sameVersions(a, b codec.ApiVersionsKey) bool {
	return a.ApiKey == b.ApiKey && a.MinVersion == b.MinVersion && a.MaxVersion == b.MaxVersion
}
