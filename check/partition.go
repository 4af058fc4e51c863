package check

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
)

// partKey names the partition of an operation: a group's, a telemetry
// client's, or one of the partitions of the requests about neither.
type partKey struct {
	kind partKind
	name string // the group's id
	id   codec.UUID
}

type partKind uint8

const (
	partGroup partKind = iota
	partDescribeMulti
	partTelemetry
	partAPIVersions
	partOther
)

// String is the key as reports name it ("group:g1", "telemetry:<uuid>").
func (k partKey) String() string {
	switch k.kind {
	case partGroup:
		return "group:" + k.name
	case partDescribeMulti:
		return "describe:multi"
	case partTelemetry:
		return "telemetry:" + k.id.String()
	case partAPIVersions:
		return "apiversions"
	}
	return "other"
}

// partKeyOf is the partition of op; Partition names it.
func partKeyOf(op *history.Op) partKey {
	if op.Tick != "" {
		return partKey{kind: partGroup, name: op.Group}
	}
	switch r := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		return partKey{kind: partGroup, name: r.GroupId}
	case *codec.LeaveGroupRequest:
		return partKey{kind: partGroup, name: r.GroupId}
	case *codec.ConsumerGroupDescribeRequest:
		if len(r.GroupIds) == 1 {
			return partKey{kind: partGroup, name: r.GroupIds[0]}
		}
		return partKey{kind: partDescribeMulti}
	case *codec.JoinGroupRequest:
		return partKey{kind: partGroup, name: r.GroupId}
	case *codec.SyncGroupRequest:
		return partKey{kind: partGroup, name: r.GroupId}
	case *codec.HeartbeatRequest:
		return partKey{kind: partGroup, name: r.GroupId}
	case *codec.DescribeGroupsRequest:
		if len(r.Groups) == 1 {
			return partKey{kind: partGroup, name: r.Groups[0]}
		}
		return partKey{kind: partDescribeMulti}
	case *codec.GetTelemetrySubscriptionsRequest, *codec.PushTelemetryRequest:
		return partKey{kind: partTelemetry, id: telemetryID(op)}
	case *codec.ApiVersionsRequest:
		return partKey{kind: partAPIVersions}
	}
	return partKey{kind: partOther}
}

// Partition names the partition of an operation, as reports name it
// ("group:g1", "telemetry:<uuid>").
func Partition(op *history.Op) string { return partKeyOf(op).String() }

// partitionOps splits items (operations, or porcupine operations holding
// them) into the check's partitions, in order of first appearance (keys[i]
// names parts[i]). A coordinator restart is not about one group: it joins
// every partition, since it restarts the timers of every group's members
// and forgets every telemetry client (restrictRestarts gives each
// partition the restart's releases of its own operations). A tick belongs
// to the partition of the group it released in; a classic request to its
// group's, as a consumer-protocol one. A run's history has a handful of
// partitions, found by a scan from the last one used; past partScan of
// them (a long history of many groups) they are found through a map. Each
// partition's list is made at its size.
func partitionOps[T any](items []T, opOf func(T) *history.Op) (keys []partKey, parts [][]T) {
	var (
		of       = make([]int32, len(items)) // each item's partition; -1 a restart
		counts   []int
		restarts int
		byKey    map[partKey]int
		last     = -1
	)
	for i, it := range items {
		op := opOf(it)
		if op.Restart {
			of[i] = -1
			restarts++
			continue
		}
		k := partKeyOf(op)
		if last < 0 || keys[last] != k {
			if byKey != nil {
				p, ok := byKey[k]
				last = p
				if !ok {
					last = -1
				}
			} else {
				last = slices.Index(keys, k)
			}
			if last < 0 {
				keys, counts, last = append(keys, k), append(counts, 0), len(keys)
				if byKey != nil {
					byKey[k] = last
				} else if len(keys) > partScan {
					byKey = make(map[partKey]int, 2*len(keys))
					for p, k := range keys {
						byKey[k] = p
					}
				}
			}
		}
		of[i] = int32(last)
		counts[last]++
	}
	parts = make([][]T, len(keys))
	for p := range parts {
		parts[p] = make([]T, 0, counts[p]+restarts)
	}
	var rs []T
	for i, it := range items {
		if of[i] < 0 {
			rs = append(rs, it)
			continue
		}
		parts[of[i]] = append(parts[of[i]], it)
	}
	for p := range parts {
		parts[p] = append(parts[p], rs...)
	}
	return keys, parts
}

// partScan is how many partitions partitionOps finds by scanning.
const partScan = 16

// telemetryID is the client instance id a telemetry request is about: the
// header's at v1 (KIP-1313), the body's at v0.
func telemetryID(op *history.Op) codec.UUID {
	if op.Header.RequestApiVersion >= 1 {
		return op.Header.ClientInstanceId.UUID
	}
	switch r := op.Request.(type) {
	case *codec.GetTelemetrySubscriptionsRequest:
		return r.ClientInstanceId
	case *codec.PushTelemetryRequest:
		return r.ClientInstanceId
	}
	return codec.UUID{}
}

// restrictRestarts gives each partition of parts its own copy of every
// restart that released parked operations, listing only the partition's
// own (a partition's coordinator in the check has seen no other): with
// puts the copy in the item's place.
func restrictRestarts[T any](parts [][]T, opOf func(T) *history.Op, with func(T, *history.Op) T) {
	for _, part := range parts {
		var mine map[int]bool
		for i, it := range part {
			op := opOf(it)
			if !op.Restart || len(op.Releases) == 0 {
				continue
			}
			if mine == nil {
				mine = make(map[int]bool, len(part))
				for _, o := range part {
					mine[opOf(o).ID] = true
				}
			}
			own := *op
			own.Releases = nil
			for _, id := range op.Releases {
				if mine[id] {
					own.Releases = append(own.Releases, id)
				}
			}
			part[i] = with(it, &own)
		}
	}
}
