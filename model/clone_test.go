package model

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// sharedRefs walks a and b together and reports the first map, slice or
// pointer that both hold (a clone must share nothing mutable; functions and
// the configuration are exempt).
func sharedRefs(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return sharedRefs(a.Elem(), b.Elem(), path)
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				if p := sharedRefs(a.MapIndex(k), bv, path+"["+k.String()+"]"); p != "" {
					return p
				}
			}
		}
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			name := a.Type().Field(i).Name
			// A member's compiled regex (matcher) is immutable and safe
			// for concurrent use: clones share it rather than compile it.
			if name == "cfg" || name == "topics" || name == "firstOfName" || name == "apis" || name == "served" || name == "matcher" {
				continue
			}
			if p := sharedRefs(a.Field(i), b.Field(i), path+"."+name); p != "" {
				return p
			}
		}
	}
	return ""
}

func TestCloneSharesNothingAndEncodesEqually(t *testing.T) {
	c := NewCoordinator(DefaultConfig(1))
	conn := Conn{ID: 1, Host: "/127.0.0.1"}
	join := func(id, instance string) {
		r := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: id, RebalanceTimeoutMs: 1000,
			SubscribedTopicNames: []string{"alpha", "beta"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
		if instance != "" {
			r.InstanceId = codec.Str(instance)
		}
		h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("c")}
		if _, err := c.Handle(conn, h, r); err != nil {
			t.Fatal(err)
		}
	}
	join("m1", "")
	join("m2", "i2")
	join("m3", "")

	cl := c.Clone()
	if p := sharedRefs(reflect.ValueOf(c), reflect.ValueOf(cl), "c"); p != "" {
		t.Fatalf("clone shares %s with the original", p)
	}
	if !bytes.Equal(c.AppendState(nil), cl.AppendState(nil)) {
		t.Fatal("a clone must encode to the same state")
	}
	join("m4", "")
	if bytes.Equal(c.AppendState(nil), cl.AppendState(nil)) {
		t.Fatal("a join on the original must not show in the clone's state")
	}
	if len(cl.Snapshot()[0].Members) != 3 {
		t.Fatalf("clone has %d members, want the 3 it was cloned with", len(cl.Snapshot()[0].Members))
	}
}

// TestCloneIntoIsClone: a clone made in a recycled coordinator's memory
// (CloneInto, the explorer's) is the clone Clone makes: the same state,
// nothing shared with its original, and it steps the same afterwards,
// whatever the coordinator it was made in held before (one more or one
// fewer group, members and partition sets of other sizes).
func TestCloneIntoIsClone(t *testing.T) {
	c := NewCoordinator(DefaultConfig(1))
	conn := Conn{ID: 1, Host: "/127.0.0.1"}
	hb := func(group, id string, epoch int32, instance string, owned []codec.ConsumerGroupHeartbeatTopicPartitions) (codec.ConsumerGroupHeartbeatRequest, *codec.RequestHeader) {
		r := codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: id, MemberEpoch: epoch, RebalanceTimeoutMs: 1000,
			SubscribedTopicNames: []string{"alpha", "beta"}, TopicPartitions: owned}
		if owned == nil {
			r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
		}
		if instance != "" {
			r.InstanceId = codec.Str(instance)
		}
		return r, &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("c")}
	}
	type step struct {
		group, id, instance string
		leave               bool
		advance             int64
	}
	steps := []step{
		{group: "g", id: "m1"}, {group: "g", id: "m2", instance: "i2"}, {group: "h", id: "m9"},
		{group: "g", id: "m1"}, {group: "g", id: "m3"}, {group: "g", id: "m2", instance: "i2", leave: true},
		{group: "g", id: "m1"}, {group: "g", id: "m3"}, {advance: 60_000}, {group: "g", id: "m4"}, {group: "g", id: "m4"},
		{group: "h", id: "m8"},
	}
	epochs := map[string]int32{}
	owned := map[string][]codec.ConsumerGroupHeartbeatTopicPartitions{} // a join owns nothing (empty, not null)
	var dst *Coordinator
	for i, s := range steps {
		if s.advance > 0 {
			c.Advance(c.Now() + s.advance)
		} else {
			epoch := epochs[s.id]
			if s.leave {
				epoch = -1
			}
			r, h := hb(s.group, s.id, epoch, s.instance, owned[s.id])
			resp, err := c.Handle(conn, h, &r)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			hr := resp.(*codec.ConsumerGroupHeartbeatResponse)
			if hr.ErrorCode != 0 {
				t.Fatalf("step %d: %s answered %v %s", i, s.id, hr.ErrorCode, hr.ErrorMessage)
			}
			epochs[s.id] = hr.MemberEpoch
			if hr.Assignment != nil {
				owned[s.id] = hr.Assignment.TopicPartitions
			}
		}
		dst = c.CloneInto(dst)
		if p := sharedRefs(reflect.ValueOf(c), reflect.ValueOf(dst), "c"); p != "" {
			t.Fatalf("step %d: the clone shares %s with the original", i, p)
		}
		want := c.Clone()
		if !bytes.Equal(dst.AppendState(nil), want.AppendState(nil)) {
			t.Fatalf("step %d: CloneInto's state differs from Clone's", i)
		}
		// Both clones step alike, and leave the original as it was.
		before := c.AppendState(nil)
		r, h := hb("g", "m5", 0, "", nil)
		a, errA := dst.Handle(conn, h, &r)
		b, errB := want.Handle(conn, h, &r)
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) || !bytes.Equal(dst.AppendState(nil), want.AppendState(nil)) {
			t.Fatalf("step %d: a join on CloneInto's clone answers %v (%v), on Clone's %v (%v)", i, a, errA, b, errB)
		}
		if !bytes.Equal(c.AppendState(nil), before) {
			t.Fatalf("step %d: a join on a clone changed the original", i)
		}
		// The groups hold the same, map keys included, and every set grows
		// on its own: one cut from CloneInto's shared memory must not write
		// over the next.
		for id, g := range dst.groups {
			w := want.groups[id]
			if w == nil || !reflect.DeepEqual(g.instances, w.instances) || !reflect.DeepEqual(g.target, w.target) || len(g.members) != len(w.members) {
				t.Fatalf("step %d: group %s: CloneInto's %+v, Clone's %+v", i, id, g, w)
			}
			for j, m := range g.members {
				p := tp{topic: 0, partition: 1000 + int32(j)}
				m.assigned.add(p)
				w.members[j].assigned.add(p)
				m.pending = append(m.pending, p)
				w.members[j].pending = append(w.members[j].pending, p)
				if !reflect.DeepEqual(*m, *w.members[j]) {
					t.Fatalf("step %d: member %s: CloneInto's %+v, Clone's %+v", i, m.id, *m, *w.members[j])
				}
			}
			for k, ts := range g.target {
				ts.add(tp{topic: 0, partition: 2000})
				g.target[k] = ts
				wt := w.target[k]
				wt.add(tp{topic: 0, partition: 2000})
				w.target[k] = wt
			}
		}
		if !bytes.Equal(dst.AppendState(nil), want.AppendState(nil)) {
			t.Fatalf("step %d: after every set grew, CloneInto's clone differs from Clone's", i)
		}
	}
	parts := 0
	for _, g := range dst.Snapshot() {
		for _, m := range g.Members {
			parts += len(m.Assigned) + len(m.Target)
		}
	}
	if n := len(dst.Snapshot()); n != 2 || parts == 0 {
		t.Fatalf("the last clone holds %d groups (want g and h) and %d partitions (want some)", n, parts)
	}
}
