package impl

import "github.com/ghostcheck/ghostcheck/codec"

// ---- interned fields: instance id, rack, client ----

func (g *group) instanceOf(mi uint32) codec.NullableString {
	if r := g.mem[mi].inst; r != 0 {
		return codec.Str(g.insts.get(r).key)
	}
	return codec.Null
}

func (g *group) rackOf(mi uint32) codec.NullableString {
	if r := g.mem[mi].rack; r != 0 {
		return codec.Str(g.racks.get(r).key)
	}
	return codec.Null
}

// holder returns the member holding instance id s, or 0.
func (g *group) holder(s string) uint32 {
	if r := g.insts.find(s); r != 0 {
		return g.insts.get(r).val
	}
	return 0
}

func (g *group) setInstance(mi uint32, s string) {
	m := &g.mem[mi]
	if m.inst != 0 && g.insts.get(m.inst).key == s {
		return
	}
	r := g.insts.acquire(s, nil)
	g.dropInstance(mi)
	g.mem[mi].inst = r
}

// dropInstance releases mi's instance id, and the instance's holder slot
// when mi holds it.
func (g *group) dropInstance(mi uint32) {
	m := &g.mem[mi]
	if m.inst == 0 {
		return
	}
	if e := g.insts.get(m.inst); e.val == mi {
		e.val = 0
	}
	g.insts.release(m.inst)
	m.inst = 0
}

func (g *group) setRack(mi uint32, s string) {
	m := &g.mem[mi]
	if m.rack != 0 && g.racks.get(m.rack).key == s {
		return
	}
	r := g.racks.acquire(s, nil)
	g.racks.release(m.rack)
	m.rack = r
}

// setClient records the client id and host of mi's latest request; the
// common case (unchanged) compares two strings and allocates nothing.
func (g *group) setClient(mi uint32, clientID, host string) {
	m := &g.mem[mi]
	if m.client != 0 {
		if k := g.clients.get(m.client).key; k.id == clientID && k.host == host || g.c.mut.Has(MutDescribeFirstClientID) {
			return
		}
	}
	r := g.clients.acquire(clientKey{clientID, host}, nil)
	g.clients.release(m.client)
	m.client = r
}

func (g *group) clientOf(mi uint32) clientKey {
	if r := g.mem[mi].client; r != 0 {
		return g.clients.get(r).key
	}
	return clientKey{}
}
