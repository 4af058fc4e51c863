package consumer_test

import (
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// librdkafka's classic consumer (group.protocol=classic), dynamic and with
// group.instance.id, through the recording proxy to kfake's classic
// coordinator, held to the classic client rules (docs/PROTOCOL.md Part
// C): KIP-394's rejoin with the id MEMBER_ID_REQUIRED gave, KIP-345's
// instance id on every JoinGroup, SyncGroup and Heartbeat, no LeaveGroup
// from a static member on close, and a stop after FENCED_INSTANCE_ID.

// classicConsumer is a librdkafka classic consumer of alpha through the
// proxy, static when instance is set.
func (e *env) classicConsumer(clientID, instance string) *kafka.Consumer {
	e.t.Helper()
	cfg := &kafka.ConfigMap{"bootstrap.servers": e.proxy.Addr(), "group.id": e.group, "group.protocol": "classic",
		"client.id": clientID, "auto.offset.reset": "earliest", "enable.auto.commit": false,
		"session.timeout.ms": 6000, "heartbeat.interval.ms": 200, "max.poll.interval.ms": 10000,
		"reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 200, "retry.backoff.ms": 20, "retry.backoff.max.ms": 200,
		"socket.connection.setup.timeout.ms": 2000, "log_level": 3}
	if instance != "" {
		(*cfg)["group.instance.id"] = instance
	}
	c, err := kafka.NewConsumer(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.SubscribeTopics([]string{"alpha"}, nil); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// closeBounded closes c, bounded: confluent-kafka-go's Close can hang
// after a fatal error (FENCED_INSTANCE_ID).
func closeBounded(t *testing.T, c *kafka.Consumer) {
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Log("Close did not return in 10 s (after a fatal error)")
	}
}

// expectClassic holds a librdkafka classic client: no violation, KIP-1313
// NOT ADOPTED, and the classic rules kept where the scenario exercises
// them.
func expectClassic(t *testing.T, c rules.ClientResult, pass ...rules.Rule) {
	t.Helper()
	if c.Requests == 0 {
		t.Fatal("no traffic recorded for the client")
	}
	for _, r := range c.Results {
		if r.Outcome == rules.OutcomeViolated {
			t.Errorf("%s: a new violation: %s", r.Rule, r.Detail)
		} else {
			t.Logf("%s: %s %s", r.Rule, r.Outcome, r.Detail)
		}
	}
	for _, rule := range pass {
		if r := c.Result(rule); r.Outcome != rules.OutcomePass {
			t.Errorf("%s: %s %s, want PASS", rule, r.Outcome, r.Detail)
		}
	}
	if r := c.Result(rules.RuleClientIDOnFirstRequest); r.Outcome != rules.OutcomeNotAdopted {
		t.Errorf("ClientIDOnFirstRequest: %s %s", r.Outcome, r.Detail)
	}
}

// leaves counts the LeaveGroups of the client with ClientId id.
func leaves(reqs []rules.ClientRequest, id string) int {
	n := 0
	for _, r := range reqs {
		if _, ok := r.Request.(*codec.LeaveGroupRequest); ok && r.Header.ClientId.Value == id {
			n++
		}
	}
	return n
}

// faultOnce applies f to the first group request of api.
func faultOnce(api codec.APIKey, f proxy.Fault) proxy.Injector {
	var mu sync.Mutex
	done := false
	return proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
		mu.Lock()
		defer mu.Unlock()
		if !done && r.Header.RequestApiKey == api {
			done = true
			return f
		}
		return proxy.Fault{}
	})
}

// Steady join, consume, close; the first join's answer lost
// (MEMBER_ID_REQUIRED for the dynamic member): librdkafka keeps KIP-394's
// rule and a static member names its instance everywhere and sends no
// LeaveGroup on close.
func TestClassic(t *testing.T) {
	for _, tc := range []struct {
		name, instance string
		faults         proxy.Injector
		pass           []rules.Rule
	}{
		{"dynamic", "", nil, []rules.Rule{rules.RuleMemberIDRequiredRejoin}},
		{"dynamic-lost-first-join", "", faultOnce(codec.JoinGroup, proxy.Fault{Kind: proxy.DropResponse}), []rules.Rule{rules.RuleMemberIDRequiredRejoin}},
		{"static", "i1", nil, []rules.Rule{rules.RuleClassicStaticInstanceID}},
		{"static-lost-first-join", "i1", faultOnce(codec.JoinGroup, proxy.Fault{Kind: proxy.DropResponse}), []rules.Rule{rules.RuleClassicStaticInstanceID}},
		{"static-sync-rebalance-in-progress", "i1", faultOnce(codec.SyncGroup, proxy.Fault{Kind: proxy.AnswerError, Code: codec.RebalanceInProgress}), []rules.Rule{rules.RuleClassicStaticInstanceID}},
		{"dynamic-heartbeat-unknown-member", "", faultOnce(codec.Heartbeat, proxy.Fault{Kind: proxy.AnswerError, Code: codec.UnknownMemberID}), nil},
		{"dynamic-heartbeat-illegal-generation", "", faultOnce(codec.Heartbeat, proxy.Fault{Kind: proxy.AnswerError, Code: codec.IllegalGeneration}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.faults)
			c := e.classicConsumer("rd-classic", tc.instance)
			n := consume(c, 8*time.Second)
			c.Close()
			if n < 10 { // a rejoin after an error reads again what it did not commit
				t.Errorf("consumed %d records, want all 10", n)
			}
			v := e.verdicts()
			expectClassic(t, v["rd-classic"], tc.pass...)
			if tc.faults != nil {
				e.faulted()
			}
			if l := leaves(e.proxy.Recording(), "rd-classic"); tc.instance != "" && l > 0 {
				t.Errorf("a static member sent %d LeaveGroups on close", l)
			}
		})
	}
}

// A static member told FENCED_INSTANCE_ID (injected on its first
// Heartbeat) stops: no request names the instance after it.
func TestClassicFencedStops(t *testing.T) {
	e := newEnv(t, faultOnce(codec.Heartbeat, proxy.Fault{Kind: proxy.AnswerError, Code: codec.FencedInstanceID}))
	c := e.classicConsumer("rd-fenced", "i1")
	consume(c, 4*time.Second)
	closeBounded(t, c)
	v := e.verdicts()
	e.faulted()
	expectClassic(t, v["rd-fenced"], rules.RuleNoRejoinAfterFencedInstance)
}

// Two processes with one instance id: the second takes it over; the
// first, told FENCED_INSTANCE_ID, stops.
func TestClassicTwoProcessesOneInstance(t *testing.T) {
	e := newEnv(t, nil)
	a := e.classicConsumer("rd-a", "i1")
	consume(a, 3*time.Second)
	b := e.classicConsumer("rd-b", "i1")
	done := make(chan struct{})
	go func() { consume(a, 4*time.Second); close(done) }()
	consume(b, 4*time.Second)
	<-done
	closeBounded(t, a)
	closeBounded(t, b)
	v := e.verdicts()
	expectClassic(t, v["rd-a"], rules.RuleNoRejoinAfterFencedInstance)
	expectClassic(t, v["rd-b"], rules.RuleClassicStaticInstanceID)
}
