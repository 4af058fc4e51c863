package clients_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/rcrowley/go-metrics"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// IBM's sarama v1.61.1 as a classic consumer (Config.Version 2.8: JoinGroup
// v6+ against kfake), dynamic and with Consumer.Group.InstanceId. Its
// Consume returns the group's errors to the caller; the loop here calls it
// again after every error but FENCED_INSTANCE_ID, which it takes as fatal,
// as sarama's own example treats every error.
var saramaClassic = classicLib{name: "sarama v1.61.1", static: true, minJoin: 5, start: startSaramaClassic}

// S1: a Heartbeat answered FENCED_INSTANCE_ID ends sarama's session
// (consumer_group_session.go, heartbeatLoop: handleError, then cancel),
// but Consume returns no error: the fence is only logged, or sent on
// Errors() when Consumer.Return.Errors is set. A caller that calls
// Consume again after it returns, as sarama's documentation and example
// loop do, joins again under the instance id and takes it back from the
// process that replaced it. A JoinGroup's or SyncGroup's
// FENCED_INSTANCE_ID is returned by Consume (ErrFencedInstancedId) and
// stops such a loop. Java's consumer throws FencedInstanceIdException from
// poll (KIP-345, Kafka 2.3, KAFKA-8225).
var findingSaramaFencedHeartbeat = finding{id: "S1", rule: rules.RuleNoRejoinAfterFencedInstance, detail: "after Heartbeat v4"}

// saramaClassicFindings are the scenarios where sarama breaks a rule.
var saramaClassicFindings = map[string][]finding{
	"static/Heartbeat-FENCED_INSTANCE_ID": {findingSaramaFencedHeartbeat},
	"static/two-processes-a":              {findingSaramaFencedHeartbeat},
	"static/two-processes-b":              {findingSaramaFencedHeartbeat.mayShow()},
}

// sarama's metrics (go-metrics) start a goroutine of the package's own at
// the first meter, which no Close ends: nil metrics keep the test binary
// free of it, for goleak.
func init() { metrics.UseNilMetrics = true }

type saramaProcess struct {
	cg     sarama.ConsumerGroup
	n      atomic.Int64
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// saramaHandler counts the records of every claim.
type saramaHandler struct{ p *saramaProcess }

func (saramaHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (saramaHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h saramaHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		h.p.n.Add(1)
		s.MarkMessage(m, "")
	}
	return nil
}

func startSaramaClassic(t *testing.T, addr, group, clientID, instance string) classicProcess {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.ClientID = clientID
	cfg.Version = sarama.V2_8_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Group.Session.Timeout = 6 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 200 * time.Millisecond
	cfg.Consumer.Group.Rebalance.Timeout = 5 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 50 * time.Millisecond
	cfg.Consumer.Group.InstanceId = instance
	cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
	cfg.Consumer.MaxWaitTime = 100 * time.Millisecond
	cg, err := sarama.NewConsumerGroup([]string{addr}, group, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxFor(t))
	p := &saramaProcess{cg: cg, cancel: cancel}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for ctx.Err() == nil {
			err := cg.Consume(ctx, []string{"alpha"}, saramaHandler{p})
			if errors.Is(err, sarama.ErrFencedInstancedId) || errors.Is(err, sarama.ErrClosedConsumerGroup) {
				return
			}
			if err != nil {
				select {
				case <-time.After(50 * time.Millisecond):
				case <-ctx.Done():
				}
			}
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *saramaProcess) consumed() int { return int(p.n.Load()) }

func (p *saramaProcess) close() {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		p.cg.Close()
	})
}

func TestSaramaClassic(t *testing.T) { classicScenarios(t, saramaClassic, saramaClassicFindings) }
