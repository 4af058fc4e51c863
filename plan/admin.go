package plan

// AdminRemoval is a KIP-345 administrative LeaveGroup: remove static
// members of a group by instance id (InstanceIDs, each an entry {"", id}),
// or members named by Entries, resolved when the round comes. Without a
// Version the admin sends the highest version the broker offers, and below
// v3 downgrades as a client must (rules.PlanLeaveGroup: one request per
// member id, none for an entry named by its instance id); with one it sends
// that version (capped at the broker's), below v3 one request per entry
// naming its member id alone.
type AdminRemoval struct {
	Round       int          `json:"round"`
	Group       string       `json:"group"`
	InstanceIDs []string     `json:"instanceIds"`
	Entries     []LeaveEntry `json:"entries,omitempty"`
	Version     *int16       `json:"version,omitempty"`
}

// LeaveName says how a LeaveGroup entry fills one of its two names, from
// the client process it picks: "" (MemberId "" or GroupInstanceId null),
// "own" (the picked client's member id, or its instance id: null for a
// dynamic client), "other" (another client's member id, or the instance id
// of another static client of the group), "unknown" (a name nobody has).
type LeaveName string

// The names a LeaveGroup entry can use; with the two fields of an entry
// they reach every row of docs/PROTOCOL.md A3's table.
const (
	NameNone    LeaveName = ""
	NameOwn     LeaveName = "own"
	NameOther   LeaveName = "other"
	NameUnknown LeaveName = "unknown"
)

// LeaveEntry is one member of a LeaveGroup request, as the plan draws it:
// Client picks a client process of the group (modulo how many it has, in
// plan order), Member and Instance how the entry names it.
type LeaveEntry struct {
	Client   int       `json:"client"`
	Member   LeaveName `json:"member,omitempty"`
	Instance LeaveName `json:"instance,omitempty"`
}

// drawAdmin draws KIP-345 administrative removals of static members
// (sometimes naming an unknown instance too), about one every 80 rounds.
func drawAdmin(d drawer, clients []ClientPlan, rounds int) []AdminRemoval {
	var out []AdminRemoval
	for r := 0; r < rounds; r += 10 + d.intn("admin gap", 20) {
		if d.intn("admin", 4) != 0 {
			continue
		}
		var static []ClientPlan
		for _, c := range clients {
			if c.InstanceID != "" {
				static = append(static, c)
			}
		}
		if len(static) == 0 {
			break
		}
		c := static[d.intn("admin target", len(static))]
		ids := []string{c.InstanceID}
		if d.intn("admin unknown", 3) == 0 {
			ids = append(ids, "inst-unknown")
		}
		out = append(out, AdminRemoval{Round: r, Group: c.Group, InstanceIDs: ids})
	}
	return out
}

// leaveRows are LeaveGroup entries, by how they name their member: with
// the entry's client picked, each reaches one row of docs/PROTOCOL.md A3's
// table (which one depends on the client: a dynamic client's "own"
// instance is null).
var leaveRows = []LeaveEntry{
	{Member: NameNone, Instance: NameOwn},        // row 1: "" + held instance (row 2 for a dynamic client)
	{Member: NameNone, Instance: NameUnknown},    // row 2: "" + unknown instance
	{Member: NameNone, Instance: NameNone},       // row 2: "" + null
	{Member: NameOwn, Instance: NameNone},        // row 3: a member's id + null
	{Member: NameUnknown, Instance: NameNone},    // row 4: not a member + null
	{Member: NameOwn, Instance: NameUnknown},     // row 5: any + unknown instance
	{Member: NameOwn, Instance: NameOther},       // row 6: another member's instance
	{Member: NameOther, Instance: NameOwn},       // row 6 again, the other way round
	{Member: NameOwn, Instance: NameOwn},         // row 7: the holder, by both names
	{Member: NameUnknown, Instance: NameUnknown}, // row 5
}

// drawLeaveGroups draws administrative LeaveGroup requests, about one
// every 25 rounds per plan: one to three entries of leaveRows, at a drawn
// version (v0 to v5) or, half the time, the highest the broker offers (a
// broker capped below v3 then sees the client's downgrade).
func drawLeaveGroups(d drawer, groups []string, rounds int) []AdminRemoval {
	var out []AdminRemoval
	for r := 5 + d.intn("leavegroup start", 20); r < rounds; r += 15 + d.intn("leavegroup gap", 20) {
		a := AdminRemoval{Round: r, Group: groups[d.intn("leavegroup group", len(groups))]}
		for n := 1 + d.intn("leavegroup entries", 3); n > 0; n-- {
			e := leaveRows[d.intn("leavegroup row", len(leaveRows))]
			e.Client = d.intn("leavegroup client", 16)
			a.Entries = append(a.Entries, e)
		}
		if v := d.intn("leavegroup version", 12); v < 6 {
			vv := int16(v)
			a.Version = &vv
		}
		out = append(out, a)
	}
	return out
}
