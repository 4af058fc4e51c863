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
