package clients_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// segmentio's kafka-go v0.4.51 as a classic consumer (a Reader with a
// GroupID): dynamic only, JoinGroup v1-v2, so KIP-394's and KIP-345's
// rules are NOT ADOPTED.
var kafkagoClassic = classicLib{name: "kafka-go v0.4.51", static: false, minJoin: 1, start: startKafkagoClassic}

// kafkagoClassicFindings are the scenarios where kafka-go breaks a rule.
var kafkagoClassicFindings = map[string][]finding{}

type kafkagoProcess struct {
	r      *kafka.Reader
	n      atomic.Int64
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

func startKafkagoClassic(t *testing.T, addr, group, clientID, _ string) classicProcess {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{addr}, GroupID: group, Topic: "alpha",
		Dialer:         &kafka.Dialer{ClientID: clientID, Timeout: 5 * time.Second},
		SessionTimeout: 6 * time.Second, HeartbeatInterval: 200 * time.Millisecond, RebalanceTimeout: 5 * time.Second,
		JoinGroupBackoff: 50 * time.Millisecond, StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond,
		ReadBackoffMin: 20 * time.Millisecond, ReadBackoffMax: 100 * time.Millisecond, CommitInterval: 0})
	ctx, cancel := context.WithCancel(ctxFor(t))
	p := &kafkagoProcess{r: r, cancel: cancel}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for ctx.Err() == nil {
			if _, err := r.ReadMessage(ctx); err == nil {
				p.n.Add(1)
			}
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *kafkagoProcess) consumed() int { return int(p.n.Load()) }

func (p *kafkagoProcess) close() {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		p.r.Close()
	})
}

func TestKafkagoClassic(t *testing.T) { classicScenarios(t, kafkagoClassic, kafkagoClassicFindings) }

// kafka-go leaves with LeaveGroup v0 whatever the broker offers (v0-v5
// from kfake): with nothing else of KIP-345 (JoinGroup v1-v2), that is
// KIP-345 not adopted, not a downgrade.
func TestKafkagoLeavesBelowV3NotAdopted(t *testing.T) {
	e := newClassicEnv(t, nil)
	p := startKafkagoClassic(t, e.proxy.Addr(), e.group, "c", "")
	waitConsumed(t, p, 10)
	p.close()
	v, reqs := e.verdicts()
	if leaveGroups(classicRequests(reqs, "c")) == 0 {
		t.Fatal("kafka-go sent no LeaveGroup on close")
	}
	if r := v["c"].Result(rules.RuleLeaveGroupDowngrade); r.Outcome != rules.OutcomeNotAdopted {
		t.Errorf("LeaveGroupDowngrade %s %s", r.Outcome, r.Detail)
	}
}
