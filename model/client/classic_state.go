package client

import "encoding/binary"

// Clone returns a copy of the classic consumer that shares nothing it
// changes: the explorer (package explore) steps a copy for each transition
// it tries. The JoinGroup answer's members and the assignment are replaced
// when they change, never written into, so the copy shares them; the
// configuration's topic list, which Resubscribe replaces, too.
func (c *Classic) Clone() *Classic { return c.CloneInto(nil) }

// CloneInto is Clone made in dst's memory, for a caller that lets go of
// dst: dst must be a consumer nobody uses any more; nil makes a new one.
func (c *Classic) CloneInto(dst *Classic) *Classic {
	if dst == nil {
		dst = new(Classic)
	}
	*dst = *c
	return dst
}

// AppendState appends a canonical encoding of everything that decides the
// consumer's next requests and how it takes the answers, each member id
// written by id (the explorer's renaming; appendString for the ids as they
// are). Two consumers with equal encodings behave the same from now on.
func (c *Classic) AppendState(b []byte, id func([]byte, string) []byte) []byte {
	b = append(b, byte(c.state), byte(c.due), boolByte(c.leader))
	b = binary.AppendVarint(b, int64(c.fatal))
	b = id(b, c.memberID)
	b = binary.AppendVarint(b, int64(c.generation))
	b = appendString(b, c.protocol)
	b = binary.AppendUvarint(b, uint64(len(c.cfg.Topics)))
	for _, t := range c.cfg.Topics {
		b = appendString(b, t)
	}
	b = appendString(b, c.cfg.InstanceID)
	b = binary.AppendUvarint(b, uint64(len(c.cfg.Protocols)))
	for _, p := range c.cfg.Protocols {
		b = appendString(b, p)
	}
	b = append(b, boolByte(c.cfg.OmitEmpty), boolByte(c.cfg.RetrySync))
	b = append(b, boolByte(c.members != nil))
	b = binary.AppendUvarint(b, uint64(len(c.members)))
	for _, m := range c.members {
		b = id(b, m.MemberId)
		b = append(b, boolByte(m.GroupInstanceId.Valid))
		b = appendString(b, m.GroupInstanceId.Value)
		b = appendString(b, string(m.Metadata))
	}
	b = binary.AppendUvarint(b, uint64(len(c.assigned)))
	for _, t := range c.assigned {
		b = appendString(b, t.Topic)
		b = binary.AppendUvarint(b, uint64(len(t.Partitions)))
		for _, p := range t.Partitions {
			b = binary.AppendVarint(b, int64(p))
		}
	}
	for _, v := range [...]int16{c.joinV, c.syncV, c.hbV, c.leaveV} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}
