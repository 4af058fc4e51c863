package check

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"html"
	"slices"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model"
)

// The porcupine model: per partition, the state is a model.Coordinator that
// has seen only that partition's requests. A partition is one group (every
// ConsumerGroupHeartbeat, LeaveGroup and single-group Describe names
// exactly one), one client instance id for telemetry, and one for
// ApiVersions, which has no state. Groups never interact in the model, so
// checking each partition alone is exact, and it keeps each search small.

// pstate is one partition's state: the coordinator and its canonical
// encoding (for Equal and Hash, computed once).
type pstate struct {
	c   *model.Coordinator
	enc []byte
}

func newPState(c *model.Coordinator) *pstate {
	return &pstate{c: c, enc: c.AppendState(nil)}
}

// stepOp applies op to a clone of s. It returns whether the recorded
// response is what the model answers, the new state, and (when not) both
// encoded responses for the report.
func stepOp(s *pstate, op *history.Op, ctx *replayCtx) (bool, *pstate, string) {
	c := s.c.Clone()
	ok, why := applyOp(c, op, ctx)
	return ok, newPState(c), why
}

// porcupineModel builds the porcupine model for histories of a coordinator
// configured by cfg; ctx is the history's (newReplayCtx).
func porcupineModel(cfg model.Config, ctx *replayCtx) porcupine.Model {
	initial := newPState(model.NewCoordinator(cfg))
	return porcupine.Model{
		Partition: func(hist []porcupine.Operation) [][]porcupine.Operation {
			opOf := func(o porcupine.Operation) *history.Op { return o.Input.(*history.Op) }
			keys, parts := partitionOps(hist, opOf)
			if ctx != nil {
				restrictRestarts(parts, opOf, func(o porcupine.Operation, op *history.Op) porcupine.Operation { o.Input = op; return o })
			}
			order := make([]int, len(keys))
			for i := range order {
				order[i] = i
			}
			sort.Slice(order, func(i, j int) bool { return keys[order[i]].String() < keys[order[j]].String() })
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, i := range order {
				out = append(out, parts[i])
			}
			return out
		},
		Init: func() any { return initial },
		Step: func(state, input, _ any) (bool, any) {
			ok, next, _ := stepOp(state.(*pstate), input.(*history.Op), ctx)
			return ok, next
		},
		StepContext: func(cancel context.Context, state, input, _ any) (bool, any) {
			if cancel.Err() != nil {
				return false, state
			}
			ok, next, _ := stepOp(state.(*pstate), input.(*history.Op), ctx)
			return ok, next
		},
		Equal: func(a, b any) bool { return bytes.Equal(a.(*pstate).enc, b.(*pstate).enc) },
		Hash: func(s any) uint64 {
			h := fnv.New64a()
			h.Write(s.(*pstate).enc)
			return h.Sum64()
		},
		DescribeOperation: func(input, _ any) string { return history.Describe(input.(*history.Op)) },
		// porcupine's page writes a state's description into its tooltip
		// as HTML (innerHTML), and the state names group, member and
		// instance ids a history file or a broker chose: escaped here,
		// they are text. (Operation descriptions and annotations it
		// writes as text; the metadata, timelineTooltip, escapes its own.)
		DescribeState: func(s any) string { return html.EscapeString(describeState(s.(*pstate).c)) },
	}
}

// describeState renders a partition's state for the timeline.
func describeState(c *model.Coordinator) string {
	var parts []string
	for _, g := range c.Snapshot() {
		var ms []string
		for _, m := range g.Members {
			s := fmt.Sprintf("%s@%d", m.MemberID[:min(8, len(m.MemberID))], m.Epoch) // its first 8 characters, as history.Describe shows ids
			if m.InstanceID != "" {
				s += "(" + m.InstanceID + ")"
			}
			ms = append(ms, s)
		}
		parts = append(parts, fmt.Sprintf("%s epoch %d: %s", g.GroupID, g.Epoch, strings.Join(ms, ", ")))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("t=%d (no groups)", c.Now())
	}
	return fmt.Sprintf("t=%d %s", c.Now(), strings.Join(parts, "; "))
}

// TimelineModel is the porcupine model a timeline (package report) draws a
// window of a history with, ops: the check's model of a coordinator
// configured by cfg, starting from the state the operations of before
// leave it in, replayed in delivery order.
func TimelineModel(cfg model.Config, before, ops history.History) porcupine.Model {
	ctx := newReplayCtx(append(slices.Clip(before), ops...))
	m := porcupineModel(cfg, ctx)
	if len(before) > 0 {
		c := model.NewCoordinator(cfg)
		for i := range before {
			applyOp(c, &before[i], ctx)
		}
		start := newPState(c)
		m.Init = func() any { return start }
	}
	return m
}

// PorcupineOps wraps h's operations for porcupine; each carries its Op as
// the input, which the model's partition and step functions read.
func PorcupineOps(h history.History) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(h))
	for i := range h {
		op := &h[i]
		// A parked operation took effect when it was handled; its answer
		// is judged at the step that released it.
		ops[i] = porcupine.Operation{ClientId: op.Client, Input: op, Call: op.Call, Output: op.Response, Return: op.HandledAt()}
	}
	return ops
}
