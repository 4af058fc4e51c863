// Package kfaketest starts kfake, franz-go's in-process fake Kafka cluster,
// as a peer nobody here wrote, for tests. Only _test.go files import it:
// kfake is a test-only dependency and must not reach the command (`go list
// -deps ./cmd/ghostcheck` lists no kfake; TestOnlyTestsImportIt holds it).
//
// What a test using kfake should know:
//   - kfake runs inside the test binary: a request that crashes it (finding
//     K12, an unknown api key) kills the binary, so such a probe runs in a
//     child process (internal/conformance's TestKfakeUnknownAPIKeyIsolated);
//   - it listens on 127.0.0.1, and a cluster is closed when its test ends;
//   - go.mod requires franz-go v1.22.3 and kmsg v1.15.1 explicitly: with
//     kfake alone, `go mod tidy` picks older ones that kfake does not
//     compile with;
//   - it serves classic and consumer groups but no mixed group: a
//     ConsumerGroupHeartbeat to a classic group that has members is
//     GROUP_ID_NOT_FOUND.
package kfaketest

import (
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Start starts a kfake cluster with opts (kfake.NumBrokers,
// kfake.SeedTopics, GroupTimers, ...) and closes it when the test ends.
func Start(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("starting kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// GroupTimers sets the brokers' KIP-848 group timers: the session timeout
// and heartbeat interval a consumer group's members get
// (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms).
func GroupTimers(session, heartbeat time.Duration) kfake.Opt {
	return kfake.BrokerConfigs(map[string]string{
		"group.consumer.session.timeout.ms":    strconv.FormatInt(session.Milliseconds(), 10),
		"group.consumer.heartbeat.interval.ms": strconv.FormatInt(heartbeat.Milliseconds(), 10),
	})
}
