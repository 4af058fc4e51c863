// Package codec reads and writes the Kafka wire protocol for the messages
// ghostcheck checks: request and response headers, size-prefixed frames, and
// the bodies of ApiVersions (18), LeaveGroup (13), ConsumerGroupHeartbeat (68),
// ConsumerGroupDescribe (69), GetTelemetrySubscriptions (71) and
// PushTelemetry (72), every version in scope. It also has the two routing
// apis, Metadata (3, v0-v13) and FindCoordinator (10, v0-v6), whose
// answers tell clients where brokers are: the recording proxy rewrites
// their hosts and ports; the two authentication apis, SaslHandshake
// (17, v0-v1) and SaslAuthenticate (36, v0-v2), which wire's dialer speaks
// to a broker that wants SASL; and the classic group protocol's apis,
// JoinGroup (11, v0-v9), Heartbeat (12, v0-v4), SyncGroup (14, v0-v5) and
// DescribeGroups (15, v0-v6), which classic consumers speak. ghostcheck's
// coordinators serve none of these three kinds, so APIs lists the six
// checked apis and AllAPIs all sixteen.
//
// The shape follows encoding/binary and franz-go's kmsg:
//
//   - Encoding is append-style: AppendTo(dst, version) appends one message to
//     dst and returns the extended slice, so a caller that reuses dst encodes
//     without allocating.
//   - Decoding goes through a Reader with a sticky error. The first failure is
//     recorded as an *Error that names the message, the field, the version and
//     the byte offset; every later read is a no-op, so message code checks the
//     error once at the end.
//   - Every length read from the wire is checked against the bytes that remain
//     before anything is allocated. No input makes a decoder panic, loop
//     without bound or allocate more than the input could fill.
//   - Unknown tagged fields are kept and written back, so decode followed by
//     encode reproduces canonical input byte for byte.
//   - Decoding into a reused message gives exactly what decoding into a
//     fresh one gives (empty non-nullable arrays are nil either way) while
//     reusing slice storage. Each message type's Decode method is the
//     allocation-free entry point: calling ReadFrom through the Message
//     interface would move the Reader to the heap, so DecodeBody,
//     DecodeRequest and DecodeResponse reach Decode's concrete code through
//     the api table (decode.go). DecodeOptions choose how strings are
//     made: one copy each (the default), one shared copy per message
//     (OneCopy), or aliases of the input (NoCopy).
//
// Tests: hand-written golden vectors (golden_test.go; the routing and
// classic apis' in golden_routing_test.go and golden_classic_test.go),
// exact error locations, encoding refusals, rapid round trips (generators
// in codectest), allocation budgets and benchmarks beside franz-go's kmsg;
// fuzz targets and the differential tests against kmsg are in ../fuzz.
//
// Files. Each API lives in a file named after its key
// (68_consumer_group_heartbeat.go), so a reader can go from the protocol
// documentation to the code directly. The file holds everything about the
// API: its key constant, its description for the api table (name, version
// range, first flexible version, response header rule, made by defineAPI
// from the request and response types), the message types with their
// AppendTo, ReadFrom and Decode methods. Adding an API is one such file and
// one row in the table in api.go; DecodeRequest, DecodeResponse, Lookup and
// the JSON form then work for it. Its tests are rows too: golden vectors, a
// generator in codectest, the kmsg conversions and a fuzz target in ../fuzz.
// The rest of the package is shared by every API:
//
//   - api.go: the api table, Message, API, header version rules
//   - decode.go: DecodeBody and the concrete decode dispatch
//   - frame.go: size-prefixed frames, AppendRequest/Response, DecodeRequest/Response
//   - header.go: request and response headers
//   - reader.go: Reader: primitives, lengths checked before allocating
//   - writer.go: Writer: append-style primitives
//   - tags.go: tagged-field sections (KIP-482)
//   - types.go: UUID, NullableString, TaggedFields
//   - json.go: reading a NullableUUID from JSON
//   - errors.go: Error and its kinds
//   - errorcodes.go: Kafka's error codes
//   - group.go: GroupOf, the group a group api's request is about
//   - consumer_protocol.go: ConsumerProtocolSubscription and
//     ConsumerProtocolAssignment, the classic consumer's bytes inside
//     JoinGroup's and SyncGroup's
//
// and the APIs, a file each: 03_metadata.go, 10_find_coordinator.go,
// 11_join_group.go, 12_heartbeat.go, 13_leave_group.go, 14_sync_group.go,
// 15_describe_groups.go, 17_sasl_handshake.go, 18_api_versions.go,
// 36_sasl_authenticate.go, 68_consumer_group_heartbeat.go,
// 69_consumer_group_describe.go, 71_get_telemetry_subscriptions.go,
// 72_push_telemetry.go.
//
// Field names follow Kafka's message schemas (GroupId, MemberId, ...), which
// is also what the JSON form of a message shows.
package codec
