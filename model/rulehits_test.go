package model_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/model"
)

// ruleLiteral is how the coordinator names a rule in its source: a string
// literal "SECTION/what".
var ruleLiteral = regexp.MustCompile(`"([AB][0-9]+(?:\.[0-9]+)?/[a-z0-9-]+)"`)

// Every rule id the coordinator's source names is listed by AppliedRules,
// every listed id is named in the source (so none is counted nowhere), and
// each id's section exists in docs/PROTOCOL.md.
func TestAppliedRulesMatchTheSource(t *testing.T) {
	listed := map[model.RuleID]bool{}
	for _, r := range model.AppliedRules() {
		if listed[r.ID] || r.What == "" {
			t.Errorf("rule %s: listed twice or without a description", r.ID)
		}
		listed[r.ID] = true
		section, _, _ := strings.Cut(string(r.ID), "/")
		if s, ok := docs.Lookup(section); !ok || s.ID != section {
			t.Errorf("rule %s: docs/PROTOCOL.md has no section %s", r.ID, section)
		}
	}
	named := map[model.RuleID]bool{}
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "rulehits.go" {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ruleLiteral.FindAllStringSubmatch(string(src), -1) {
			named[model.RuleID(m[1])] = true
		}
	}
	for id := range named {
		if !listed[id] {
			t.Errorf("the source counts rule %s, which AppliedRules does not list", id)
		}
	}
	for id := range listed {
		if !named[id] {
			t.Errorf("AppliedRules lists %s, which the source never counts", id)
		}
	}
}

// A coordinator given a counter counts the rules it applies; without one
// it counts nothing (and nothing breaks).
func TestRuleHitsCount(t *testing.T) {
	hits := model.RuleHits{}
	cfg := testConfig()
	cfg.Rules = hits
	w := newWorld(t, cfg)
	p := w.spawn(model.ClientConfig{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 1)
	w.heartbeat(p, false)
	w.heartbeat(p, false)
	bad := &codec.ConsumerGroupHeartbeatRequest{GroupId: " ", MemberId: "m", RebalanceTimeoutMs: 1, SubscribedTopicNames: []string{}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	w.sendHeartbeat(p, bad, 1)
	for _, id := range []model.RuleID{"B7.1/versions-answered", "A2/first-clientid-remembered", "B4.4/group-created", "A5.1/member-joined",
		"A5.7/assignment-on-join", "A5.4/current-epoch", "B4.2/group-id-blank", "A2/null-clientid-attributed-first"} {
		if hits[id] == 0 {
			t.Errorf("rule %s was not counted: %v", id, hits)
		}
	}
	if hits["B4.4/group-created"] != 1 {
		t.Errorf("the group was created %d times, want once", hits["B4.4/group-created"])
	}
	w2 := newWorld(t, testConfig())
	q := w2.spawn(model.ClientConfig{ClientID: "q", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 1)
	if r := w2.heartbeat(q, false); r.ErrorCode != codec.None {
		t.Fatal(r.ErrorCode)
	}
}
