package clients_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// franz-go's kgo v1.22.3 as a classic consumer (its default: JoinGroup,
// SyncGroup, Heartbeat with the cooperative-sticky balancer), dynamic and
// with kgo.InstanceID.
var kgoClassic = classicLib{name: "kgo v1.22.3", static: true, minJoin: 9, start: startKgoClassic}

// G3: after FENCED_INSTANCE_ID (to a JoinGroup, SyncGroup or Heartbeat)
// kgo's classic group loop (consumer_group.go, manage: every error of
// joinAndSync or the heartbeat loop goes to manageFailWait, then a rejoin)
// backs off and joins again under its instance id, which takes the
// instance back from the process that replaced it: two processes with one
// instance id fence each other in turn. Java's consumer treats the answer
// as fatal (KIP-345, Kafka 2.3, KAFKA-8225).
var findingKgoRejoinAfterFenced = finding{id: "G3", rule: rules.RuleNoRejoinAfterFencedInstance, detail: `JoinGroup v9 (conn `}

// kgoClassicFindings are the scenarios where kgo breaks a rule, and how.
var kgoClassicFindings = map[string][]finding{
	"static/SyncGroup-FENCED_INSTANCE_ID": {findingKgoRejoinAfterFenced},
	"static/Heartbeat-FENCED_INSTANCE_ID": {findingKgoRejoinAfterFenced},
	"static/two-processes-a":              {findingKgoRejoinAfterFenced},
	"static/two-processes-b":              {findingKgoRejoinAfterFenced.mayShow()},
}

type kgoProcess struct {
	cl     *kgo.Client
	n      atomic.Int64
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

func startKgoClassic(t *testing.T, addr, group, clientID, instance string) classicProcess {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.ClientID(clientID), kgo.ConsumerGroup(group), kgo.ConsumeTopics("alpha"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.SessionTimeout(6 * time.Second), kgo.HeartbeatInterval(200 * time.Millisecond),
		kgo.RebalanceTimeout(5 * time.Second), kgo.RequestTimeoutOverhead(2 * time.Second),
		kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond })}
	if instance != "" {
		opts = append(opts, kgo.InstanceID(instance))
	}
	return pollKgo(t, opts...)
}

// pollKgo starts a kgo client with opts that polls until it is closed
// (or the test ends), counting the records it gets.
func pollKgo(t *testing.T, opts ...kgo.Opt) *kgoProcess {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxFor(t))
	p := &kgoProcess{cl: cl, cancel: cancel}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for ctx.Err() == nil {
			p.n.Add(int64(cl.PollFetches(ctx).NumRecords()))
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *kgoProcess) consumed() int { return int(p.n.Load()) }

func (p *kgoProcess) close() {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		p.cl.Close()
	})
}

func TestKgoClassic(t *testing.T) { classicScenarios(t, kgoClassic, kgoClassicFindings) }
