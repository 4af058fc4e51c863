package client

import (
	"encoding/binary"
)

// Clone returns a copy of the client that shares nothing it changes: the
// explorer (package explore) steps a copy for each transition it tries.
// The configuration (its topic list, which Resubscribe replaces but never
// changes in place, and its random source, read only by New), the ids
// (replaced whole when one changes), the owned partitions (a list
// OnHeartbeat builds anew, never changed once built), the broker's
// version list and what the last heartbeat reported as owned (each
// replaced when it changes) are shared: a clone is one allocation.
func (c *Client) Clone() *Client { return c.CloneInto(nil) }

// CloneInto is Clone made in dst's memory, for a caller that lets go of
// dst: dst must be a client nobody uses any more; nil makes a new one.
func (c *Client) CloneInto(dst *Client) *Client {
	if dst == nil {
		dst = new(Client)
	}
	*dst = *c
	return dst
}

// AppendState appends a canonical encoding of everything that decides the
// client's next requests and how it takes the answers, except what a
// caller writes in its own form: its ids (MemberID, InstanceID) and its
// correlation counter, which only grows (a caller that matches answers to
// requests writes that relation itself). Two clients with equal encodings,
// equal ids and correlation ids that relate alike behave the same from now
// on. Generations of the subscription are written as their distances, so
// that a client that resubscribed and was acknowledged encodes as one that
// never resubscribed to the same topics.
func (c *Client) AppendState(b []byte) []byte {
	b = append(b, byte(c.state), boolByte(c.needFull), boolByte(c.clearNames), boolByte(c.clearRegex))
	b = binary.AppendVarint(b, int64(c.epoch))
	b = binary.AppendVarint(b, int64(c.hbVersion))
	b = binary.AppendVarint(b, int64(c.lgVersion))
	b = appendString(b, c.ids.clientID)
	b = binary.AppendUvarint(b, uint64(len(c.cfg.Topics)))
	for _, t := range c.cfg.Topics {
		b = appendString(b, t)
	}
	b = appendString(b, c.cfg.Regex)
	b = binary.AppendVarint(b, int64(c.subGen-c.ackedGen))
	if c.sentGen < 0 || c.subGen == c.ackedGen {
		// Acknowledging what is already acknowledged changes nothing:
		// which generation the heartbeat in flight carries matters only
		// while one is not.
		b = append(b, 0)
	} else {
		b = binary.AppendVarint(append(b, 1), int64(c.subGen-c.sentGen))
	}
	b = appendOwnedKey(b, c.owned)    // kept in topic id order, partitions sorted: canonical
	if c.cfg.NullOwnedWhenUnchanged { // what the last heartbeat reported matters only then
		b = binary.AppendUvarint(b, uint64(len(c.sentOwned)))
		b = append(b, c.sentOwned...)
	}
	// The broker's list as it came (BrokerMaxVersion reads its last entry
	// of a key): a broker sends one list, so its order is no freedom.
	b = binary.AppendUvarint(b, uint64(len(c.maxSeen)))
	for _, k := range c.maxSeen {
		b = binary.AppendVarint(b, int64(k.ApiKey))
		b = binary.AppendVarint(b, int64(k.MaxVersion))
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
