package consumer_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/upgradetest"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// A real rolling upgrade of librdkafka consumers (internal/upgradetest):
// three processes in one group on group.protocol=classic, each in turn
// replaced by one on group.protocol=consumer, then each in turn back,
// against ghostcheck's own coordinator with mixed groups (kfake answering
// the rest), every request through the proxy; each process then held to
// the client rules of its protocol.

// rdUpgradeProcess is one librdkafka consumer process of the fleet.
type rdUpgradeProcess struct {
	clientID string
	consumer bool
	c        *kafka.Consumer
	t        *testing.T
	n        atomic.Int64
	stop     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
}

// rdUpgradeStarter starts processes through w's proxy: classic
// (librdkafka's default assignors, 6 s sessions, 200 ms heartbeats) or on
// the consumer protocol (the broker's timers and assignor). They commit
// nothing: kfake holds offset 0.
func rdUpgradeStarter(t *testing.T, w *upgradetest.World) upgradetest.StartFunc {
	return func(clientID, instance string, consumer bool) upgradetest.Process {
		cfg := kafka.ConfigMap{"bootstrap.servers": w.Proxy.Addr(), "group.id": w.Group, "client.id": clientID,
			"auto.offset.reset": "earliest", "enable.auto.commit": false,
			"reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 200, "retry.backoff.ms": 20, "retry.backoff.max.ms": 200,
			"socket.connection.setup.timeout.ms": 2000, "log_level": 3}
		if consumer {
			cfg["group.protocol"] = "consumer"
		} else {
			cfg["group.protocol"] = "classic"
			cfg["session.timeout.ms"] = int(upgradetest.SessionTimeout.Milliseconds())
			cfg["heartbeat.interval.ms"] = int(upgradetest.HeartbeatInterval.Milliseconds())
			cfg["max.poll.interval.ms"] = 10000
		}
		if instance != "" {
			cfg["group.instance.id"] = instance
		}
		c, err := kafka.NewConsumer(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SubscribeTopics([]string{w.Topic}, nil); err != nil {
			t.Fatal(err)
		}
		p := &rdUpgradeProcess{clientID: clientID, consumer: consumer, c: c, t: t, stop: make(chan struct{})}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for {
				select {
				case <-p.stop:
					return
				default:
				}
				if _, ok := c.Poll(50).(*kafka.Message); ok {
					p.n.Add(1)
				}
			}
		}()
		t.Cleanup(p.Close)
		return p
	}
}

func (p *rdUpgradeProcess) ClientID() string { return p.clientID }
func (p *rdUpgradeProcess) Consumer() bool   { return p.consumer }
func (p *rdUpgradeProcess) Consumed() int    { return int(p.n.Load()) }

// MemberID: confluent-kafka-go does not say which member id it holds.
func (p *rdUpgradeProcess) MemberID() (string, bool) { return "", false }

func (p *rdUpgradeProcess) Owned() []int32 {
	tps, err := p.c.Assignment()
	if err != nil {
		return nil
	}
	var out []int32
	for _, tp := range tps {
		out = append(out, tp.Partition)
	}
	slices.Sort(out)
	return out
}

func (p *rdUpgradeProcess) Close() {
	p.once.Do(func() {
		close(p.stop)
		p.wg.Wait()
		closeBounded(p.t, p.c)
	})
}

// R1: a static librdkafka consumer-protocol process whose join replaced
// its classic predecessor (A7.3) is answered NONE at MemberEpoch 0, the
// copied member's epoch while it revokes what the classic assignment gave
// it and the uniform target does not (as Kafka 4.0 answers: its static
// replacement copies the member at epoch 0, and CurrentAssignmentBuilder
// keeps a member's epoch while partitions are unrevoked; read from Kafka's
// source, not yet run against a real broker). librdkafka's next heartbeat is at epoch 0 but not a join: no
// RebalanceTimeoutMs, no subscription, no InstanceId, its kept partitions
// in TopicPartitions, which Kafka refuses (INVALID_REQUEST, §B4.2: a
// request at epoch 0 is a join); librdkafka takes that as fatal, the
// process stops consuming, its member is removed and the group converts
// back to classic. The static upgrade stops at its first step.
func r1(reqs []rules.ClientRequest) string {
	zero := false
	for _, r := range reqs {
		hb, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest)
		if !ok || r.Header.ClientId.Value != "p0-consumer" {
			continue
		}
		resp, _ := r.Response.(*codec.ConsumerGroupHeartbeatResponse)
		switch {
		case resp == nil:
		case hb.MemberEpoch == 0 && hb.RebalanceTimeoutMs > 0 && resp.ErrorCode == codec.None && resp.MemberEpoch == 0:
			zero = true
		case zero && hb.MemberEpoch == 0 && hb.RebalanceTimeoutMs == -1 && resp.ErrorCode == codec.InvalidRequest:
			return fmt.Sprintf("after NONE at MemberEpoch 0, a heartbeat at epoch 0 with RebalanceTimeoutMs -1, InstanceId %v, TopicPartitions %v: INVALID_REQUEST %v",
				hb.InstanceId, hb.TopicPartitions, resp.ErrorMessage)
		}
	}
	return ""
}

// The fleet, dynamic and static, against a correct coordinator. Dynamic:
// every step settles, the group's steps and conversions are the expected
// ones, no live process is fenced, and each process keeps the client
// rules. Static: R1 stops it at the first step, and must reproduce.
func TestUpgrade(t *testing.T) {
	for _, static := range []bool{false, true} {
		name := "dynamic"
		if static {
			name = "static"
		}
		t.Run(name, func(t *testing.T) {
			cluster := kfaketest.Start(t, kfake.SeedTopics(6, "alpha"), kfake.NumBrokers(1))
			rest := cluster.ListenAddrs()[0]
			produce(t, cluster.ListenAddrs())
			group := "g-" + strings.ReplaceAll(t.Name(), "/", "-")
			w := upgradetest.Start(t, rest, group, "alpha", kfaketest.SeedGroup(t, rest, group, "alpha"), 6, impl.Mutants{})
			within := time.Minute
			if static {
				within = 15 * time.Second // R1: the first step never settles
			}
			r, err := w.Upgrade(rdUpgradeStarter(t, w), static, within)
			if static {
				t.Logf("the group after each step: %q", r.Steps)
				t.Logf("conversions seen: %q", r.Conversions)
				w.Proxy.Close()
				got := r1(w.Proxy.Recording())
				switch {
				case err == nil:
					t.Fatal("finding R1 did not reproduce: the static upgrade completed")
				case got == "":
					t.Fatalf("the static upgrade failed without R1: %v", err)
				}
				t.Logf("known finding R1: %s; %v", got, err)
				return
			}
			verdicts := w.Judge(t, r, err, static)
			for _, p := range r.Processes {
				t.Run(p.ClientID(), func(t *testing.T) {
					if p.Consumer() {
						expect(t, verdicts[p.ClientID()])
					} else {
						expectClassic(t, verdicts[p.ClientID()])
					}
				})
			}
		})
	}
}
