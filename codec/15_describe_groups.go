package codec

// DescribeGroups (api key 15), versions 0-6, flexible from v5: the state,
// protocol and members of classic groups. It is a classic api
// (API.Classic): ghostcheck reads it to observe classic groups.
//
//	v0     Groups                    → Groups[ErrorCode, GroupId, GroupState, ProtocolType,
//	                                   ProtocolData, Members[MemberId, ClientId, ClientHost,
//	                                   MemberMetadata, MemberAssignment]]
//	v1-v2  same                      → + ThrottleTimeMs (first)
//	v3     + IncludeAuthorizedOperations
//	                                 → + Groups.AuthorizedOperations
//	v4     same                      → + Members.GroupInstanceId (KIP-345)
//	v5     flexible
//	v6     same                      → + Groups.ErrorMessage; an unknown group is
//	                                   GROUP_ID_NOT_FOUND, not a Dead group (KIP-1043)
//
// A field a version lacks reads as Kafka's default (AuthorizedOperations
// INT32_MIN, AuthorizedOperationsUnknown; null strings; false); only
// ThrottleTimeMs and Members.GroupInstanceId are ignorable, the others must
// hold their default to be written at a version without them.

// DescribeGroups is api key 15.
const DescribeGroups APIKey = 15

// describeGroupsAPI is DescribeGroups' row of the api table.
var describeGroupsAPI = defineAPI[DescribeGroupsRequest, DescribeGroupsResponse](API{Key: DescribeGroups, Name: "DescribeGroups", MinVersion: 0, MaxVersion: 6, FlexibleFrom: 5, Classic: true})

// DescribeGroupsRequest names the groups to describe.
type DescribeGroupsRequest struct {
	Groups []string
	// IncludeAuthorizedOperations is v3+; it must be false before.
	IncludeAuthorizedOperations bool
	UnknownTags                 TaggedFields `json:",omitempty"`
}

func (*DescribeGroupsRequest) Key() APIKey      { return DescribeGroups }
func (*DescribeGroupsRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *DescribeGroupsRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(DescribeGroups, false, version); err != nil {
		return dst, err
	}
	b := w.StringArray(dst, "Groups", m.Groups, false)
	if version >= 3 {
		b = AppendBool(b, m.IncludeAuthorizedOperations)
	} else {
		w.Absent("IncludeAuthorizedOperations", !m.IncludeAuthorizedOperations, false)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *DescribeGroupsRequest) ReadFrom(r *Reader) {
	m.Groups = r.StringArray("Groups", m.Groups, false)
	m.IncludeAuthorizedOperations = false
	if r.Version() >= 3 {
		m.IncludeAuthorizedOperations = r.Bool("IncludeAuthorizedOperations")
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *DescribeGroupsRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *DescribeGroupsRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, DescribeGroups, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// DescribeGroupsResponse describes each group asked for, in order.
type DescribeGroupsResponse struct {
	// ThrottleTimeMs is v1+ (ignorable).
	ThrottleTimeMs int32
	Groups         []DescribeGroupsGroup
	UnknownTags    TaggedFields `json:",omitempty"`
}

// DescribeGroupsGroup is one described group.
type DescribeGroupsGroup struct {
	ErrorCode ErrorCode
	// ErrorMessage is v6+; it must be null before.
	ErrorMessage NullableString
	GroupId      string
	// GroupState is Kafka's name of the state (Empty, PreparingRebalance,
	// CompletingRebalance, Stable, Dead for a classic group).
	GroupState   string
	ProtocolType string
	// ProtocolData is the protocol chosen (the assignor, for consumers),
	// filled in when the group is Stable.
	ProtocolData string
	Members      []DescribeGroupsMember
	// AuthorizedOperations is v3+; it must be AuthorizedOperationsUnknown
	// (INT32_MIN) before.
	AuthorizedOperations int32
	UnknownTags          TaggedFields `json:",omitempty"`
}

// DescribeGroupsMember is one member of a described group.
type DescribeGroupsMember struct {
	MemberId string
	// GroupInstanceId is v4+ (ignorable).
	GroupInstanceId NullableString
	ClientId        string
	ClientHost      string
	// MemberMetadata and MemberAssignment are filled in when the group is
	// Stable.
	MemberMetadata   []byte
	MemberAssignment []byte
	UnknownTags      TaggedFields `json:",omitempty"`
}

func (*DescribeGroupsResponse) Key() APIKey      { return DescribeGroups }
func (*DescribeGroupsResponse) IsResponse() bool { return true }

// AppendTo implements Message.
func (m *DescribeGroupsResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(DescribeGroups, true, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 1 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	groups := m.Groups
	b = w.ArrayLen(b, len(groups))
	for i := range groups {
		g := &groups[i]
		b = AppendInt16(b, int16(g.ErrorCode))
		if version >= 6 {
			b = w.NullableString(b, "Groups.ErrorMessage", g.ErrorMessage)
		} else {
			w.Absent("Groups.ErrorMessage", !g.ErrorMessage.Valid, false)
		}
		b = w.String(b, "Groups.GroupId", g.GroupId)
		b = w.String(b, "Groups.GroupState", g.GroupState)
		b = w.String(b, "Groups.ProtocolType", g.ProtocolType)
		b = w.String(b, "Groups.ProtocolData", g.ProtocolData)
		b = w.ArrayLen(b, len(g.Members))
		for j := range g.Members {
			mb := &g.Members[j]
			b = w.String(b, "Members.MemberId", mb.MemberId)
			if version >= 4 {
				b = w.NullableString(b, "Members.GroupInstanceId", mb.GroupInstanceId)
			}
			b = w.String(b, "Members.ClientId", mb.ClientId)
			b = w.String(b, "Members.ClientHost", mb.ClientHost)
			b = w.Bytes(b, mb.MemberMetadata)
			b = w.Bytes(b, mb.MemberAssignment)
			b = w.UnknownTags(b, "Members.TaggedFields", mb.UnknownTags)
		}
		if version >= 3 {
			b = AppendInt32(b, g.AuthorizedOperations)
		} else {
			w.Absent("Groups.AuthorizedOperations", g.AuthorizedOperations == AuthorizedOperationsUnknown, false)
		}
		b = w.UnknownTags(b, "Groups.TaggedFields", g.UnknownTags)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *DescribeGroupsResponse) ReadFrom(r *Reader) {
	v := r.Version()
	m.ThrottleTimeMs = 0
	if v >= 1 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	// A group is at least ErrorCode 2, four strings, Members, and from v3
	// AuthorizedOperations 4: 2+8+4 (+4) bytes classic; flexible, with
	// one byte each for the strings, Members and tags, and ErrorMessage
	// from v6, 2+4+1+4+1 (+1).
	minGroup := 14
	switch {
	case r.Flexible():
		minGroup = 12
		if v >= 6 {
			minGroup = 13
		}
	case v >= 3:
		minGroup = 18
	}
	// A member is at least MemberId, ClientId, ClientHost (2 each),
	// GroupInstanceId from v4 (2) and the two byte strings (4 each)
	// classic; flexible, 1 each and tags 1.
	minMember := 14
	switch {
	case r.Flexible():
		minMember = 7
	case v >= 4:
		minMember = 16
	}
	n := r.ArrayLen("Groups", minGroup, false)
	m.Groups = resize(m.Groups, n)
	for i := range m.Groups {
		g := &m.Groups[i]
		g.ErrorCode = ErrorCode(r.Int16("Groups.ErrorCode"))
		message := g.ErrorMessage
		g.ErrorMessage = Null
		if v >= 6 {
			g.ErrorMessage = r.NullableString("Groups.ErrorMessage", message)
		}
		g.GroupId = r.String("Groups.GroupId", g.GroupId)
		g.GroupState = r.String("Groups.GroupState", g.GroupState)
		g.ProtocolType = r.String("Groups.ProtocolType", g.ProtocolType)
		g.ProtocolData = r.String("Groups.ProtocolData", g.ProtocolData)
		nm := r.ArrayLen("Members", minMember, false)
		g.Members = resize(g.Members, nm)
		for j := range g.Members {
			mb := &g.Members[j]
			mb.MemberId = r.String("Members.MemberId", mb.MemberId)
			instance := mb.GroupInstanceId
			mb.GroupInstanceId = Null
			if v >= 4 {
				mb.GroupInstanceId = r.NullableString("Members.GroupInstanceId", instance)
			}
			mb.ClientId = r.String("Members.ClientId", mb.ClientId)
			mb.ClientHost = r.String("Members.ClientHost", mb.ClientHost)
			mb.MemberMetadata = r.Bytes("Members.MemberMetadata")
			mb.MemberAssignment = r.Bytes("Members.MemberAssignment")
			mb.UnknownTags = nil
			if r.Flexible() {
				mb.UnknownTags = r.UnknownTags("Members.TaggedFields", mb.UnknownTags)
			}
		}
		g.AuthorizedOperations = AuthorizedOperationsUnknown
		if v >= 3 {
			g.AuthorizedOperations = r.Int32("Groups.AuthorizedOperations")
		}
		g.UnknownTags = nil
		if r.Flexible() {
			g.UnknownTags = r.UnknownTags("Groups.TaggedFields", g.UnknownTags)
		}
	}
	m.UnknownTags = nil
	if r.Flexible() {
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *DescribeGroupsResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *DescribeGroupsResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, DescribeGroups, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
