package model_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// clauseLiteral is how the coordinator names a clause in its source: a
// string literal "SECTION/what".
var clauseLiteral = regexp.MustCompile(`"([AB][0-9]+(?:\.[0-9]+)?/[a-z0-9-]+)"`)

// Every clause the coordinator's source names is listed by Clauses, every
// listed clause is named in the source (so none is counted nowhere), and
// each clause's section exists in docs/PROTOCOL.md.
func TestClausesMatchTheSource(t *testing.T) {
	listed := map[model.Clause]bool{}
	for _, c := range model.Clauses() {
		if listed[c.ID] || c.What == "" {
			t.Errorf("clause %s: listed twice or without a description", c.ID)
		}
		listed[c.ID] = true
		section, _, _ := strings.Cut(string(c.ID), "/")
		if s, ok := docs.Lookup(section); !ok || s.ID != section {
			t.Errorf("clause %s: docs/PROTOCOL.md has no section %s", c.ID, section)
		}
	}
	named := map[model.Clause]bool{}
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "clauses.go" {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range clauseLiteral.FindAllStringSubmatch(string(src), -1) {
			named[model.Clause(m[1])] = true
		}
	}
	for id := range named {
		if !listed[id] {
			t.Errorf("the source counts clause %s, which Clauses does not list", id)
		}
	}
	for id := range listed {
		if !named[id] {
			t.Errorf("Clauses lists %s, which the source never counts", id)
		}
	}
}

// A coordinator given a counter counts the clauses it applies; without one
// it counts nothing (and nothing breaks).
func TestClauseHitsCount(t *testing.T) {
	hits := model.ClauseHits{}
	cfg := testConfig()
	cfg.Clauses = hits
	w := newWorld(t, cfg)
	p := w.spawn(client.Config{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 1)
	w.heartbeat(p, false)
	w.heartbeat(p, false)
	bad := &codec.ConsumerGroupHeartbeatRequest{GroupId: " ", MemberId: "m", RebalanceTimeoutMs: 1, SubscribedTopicNames: []string{}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	w.sendHeartbeat(p, bad, 1)
	for _, id := range []model.Clause{"B7.1/versions-answered", "A2/first-clientid-remembered", "B4.4/group-created", "A5.1/member-joined",
		"A5.7/assignment-on-join", "A5.4/current-epoch", "B4.2/group-id-blank", "A2/null-clientid-attributed-first"} {
		if hits[id] == 0 {
			t.Errorf("clause %s was not counted: %v", id, hits)
		}
	}
	if hits["B4.4/group-created"] != 1 {
		t.Errorf("the group was created %d times, want once", hits["B4.4/group-created"])
	}
	w2 := newWorld(t, testConfig())
	q := w2.spawn(client.Config{ClientID: "q", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 1)
	if r := w2.heartbeat(q, false); r.ErrorCode != codec.None {
		t.Fatal(r.ErrorCode)
	}
}
