// Package mock runs librdkafka's mock cluster (the one bundled, statically,
// with confluent-kafka-go) in this process, with the topics and KIP-848
// timers ghostcheck's checks need.
//
// confluent-kafka-go's kafka.MockCluster starts the same mock, but keeps its
// C handle to itself, so the consumer-group session timeout and heartbeat
// interval (rd_kafka_mock_set_group_consumer_session_timeout_ms and
// …_heartbeat_interval_ms, exported by librdkafka and not wrapped by the Go
// package) could not be set through it. This package makes the cluster with
// the same calls kafka.NewMockCluster makes, declared here from librdkafka's
// rdkafka_mock.h, and links against the library the kafka package bundles.
//
// The mock runs on threads of this process and aborts the whole process on
// some inputs (librdkafka asserts on what it reads from the wire): run it in
// a process of its own (cmd/rdmock), never inside a test binary that has
// anything else to do.
package mock

/*
#include <stdlib.h>

typedef struct rd_kafka_s rd_kafka_t;
typedef struct rd_kafka_conf_s rd_kafka_conf_t;
typedef struct rd_kafka_mock_cluster_s rd_kafka_mock_cluster_t;

// From rdkafka.h (librdkafka 2.15.0). The enums are ints in the C ABI.
rd_kafka_conf_t *rd_kafka_conf_new(void);
void rd_kafka_conf_destroy(rd_kafka_conf_t *conf);
int rd_kafka_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value, char *errstr, size_t errstr_size);
rd_kafka_t *rd_kafka_new(int type, rd_kafka_conf_t *conf, char *errstr, size_t errstr_size);
void rd_kafka_destroy(rd_kafka_t *rk);
const char *rd_kafka_err2str(int err);

// From rdkafka_mock.h (librdkafka 2.15.0).
rd_kafka_mock_cluster_t *rd_kafka_mock_cluster_new(rd_kafka_t *rk, int broker_cnt);
void rd_kafka_mock_cluster_destroy(rd_kafka_mock_cluster_t *mcluster);
const char *rd_kafka_mock_cluster_bootstraps(const rd_kafka_mock_cluster_t *mcluster);
int rd_kafka_mock_topic_create(rd_kafka_mock_cluster_t *mcluster, const char *topic, int partition_cnt, int replication_factor);
void rd_kafka_mock_set_group_consumer_session_timeout_ms(rd_kafka_mock_cluster_t *mcluster, int group_consumer_session_timeout_ms);
void rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(rd_kafka_mock_cluster_t *mcluster, int group_consumer_heartbeat_interval_ms);
int rd_kafka_mock_coordinator_set(rd_kafka_mock_cluster_t *mcluster, const char *key_type, const char *key, int broker_id);
int rd_kafka_mock_broker_set_down(rd_kafka_mock_cluster_t *mcluster, int broker_id);
int rd_kafka_mock_broker_set_up(rd_kafka_mock_cluster_t *mcluster, int broker_id);
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	// The static librdkafka these declarations link against: the kafka
	// package's cgo flags put it on the link line.
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// Topic is a topic the cluster is created with.
type Topic struct {
	Name       string
	Partitions int
}

// Config is the cluster to start.
type Config struct {
	// Brokers is the number of mock brokers (0: 1). With one broker it is
	// every group's coordinator.
	Brokers int
	Topics  []Topic
	// SessionTimeout is group.consumer.session.timeout.ms (0: the mock's
	// default, 45 s). The mock checks sessions once a second, so a member
	// expires up to a second after its timeout.
	SessionTimeout time.Duration
	// HeartbeatInterval is group.consumer.heartbeat.interval.ms (0: the
	// mock's default, 3 s).
	HeartbeatInterval time.Duration
}

// Cluster is a running mock cluster.
type Cluster struct {
	rk *C.rd_kafka_t
	mc *C.rd_kafka_mock_cluster_t
}

// rdKafkaProducer is RD_KAFKA_PRODUCER: the mock needs a client handle to
// live in, as kafka.NewMockCluster makes it.
const rdKafkaProducer = 0

// Start starts a mock cluster listening on 127.0.0.1 (a port per broker).
func Start(cfg Config) (*Cluster, error) {
	if cfg.Brokers <= 0 {
		cfg.Brokers = 1
	}
	for _, t := range cfg.Topics {
		if t.Name == "" || t.Partitions <= 0 {
			return nil, fmt.Errorf("mock: topic %q with %d partitions", t.Name, t.Partitions)
		}
	}
	for _, d := range []time.Duration{cfg.SessionTimeout, cfg.HeartbeatInterval} {
		if d < 0 || d.Milliseconds() > 1<<31-1 || d > 0 && d < time.Millisecond {
			return nil, fmt.Errorf("mock: timer %v out of range", d)
		}
	}
	errstr := (*C.char)(C.malloc(512))
	defer C.free(unsafe.Pointer(errstr))
	conf := C.rd_kafka_conf_new()
	// Warnings and errors only: the handle has no bootstrap.servers (it
	// is not a client), which librdkafka would otherwise note on stderr.
	if err := confSet(conf, "log_level", "4", errstr); err != nil {
		C.rd_kafka_conf_destroy(conf)
		return nil, err
	}
	rk := C.rd_kafka_new(rdKafkaProducer, conf, errstr, 512)
	if rk == nil {
		C.rd_kafka_conf_destroy(conf)
		return nil, fmt.Errorf("mock: rd_kafka_new: %s", C.GoString(errstr))
	}
	mc := C.rd_kafka_mock_cluster_new(rk, C.int(cfg.Brokers))
	if mc == nil {
		C.rd_kafka_destroy(rk)
		return nil, errors.New("mock: rd_kafka_mock_cluster_new failed")
	}
	c := &Cluster{rk: rk, mc: mc}
	if cfg.SessionTimeout > 0 {
		C.rd_kafka_mock_set_group_consumer_session_timeout_ms(mc, C.int(cfg.SessionTimeout.Milliseconds()))
	}
	if cfg.HeartbeatInterval > 0 {
		C.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(mc, C.int(cfg.HeartbeatInterval.Milliseconds()))
	}
	for _, t := range cfg.Topics {
		name := C.CString(t.Name)
		code := C.rd_kafka_mock_topic_create(mc, name, C.int(t.Partitions), 1)
		C.free(unsafe.Pointer(name))
		if code != 0 {
			c.Close()
			return nil, fmt.Errorf("mock: topic %s: %s", t.Name, C.GoString(C.rd_kafka_err2str(code)))
		}
	}
	return c, nil
}

func confSet(conf *C.rd_kafka_conf_t, name, value string, errstr *C.char) error {
	n, v := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(n))
	defer C.free(unsafe.Pointer(v))
	if C.rd_kafka_conf_set(conf, n, v, errstr, 512) != 0 {
		return fmt.Errorf("mock: %s=%s: %s", name, value, C.GoString(errstr))
	}
	return nil
}

// Bootstrap is the cluster's bootstrap.servers: "127.0.0.1:PORT", one per
// broker, comma-separated.
func (c *Cluster) Bootstrap() string { return C.GoString(C.rd_kafka_mock_cluster_bootstraps(c.mc)) }

// Close stops the cluster and frees it.
func (c *Cluster) Close() {
	if c.mc != nil {
		C.rd_kafka_mock_cluster_destroy(c.mc)
		c.mc = nil
	}
	if c.rk != nil {
		C.rd_kafka_destroy(c.rk)
		c.rk = nil
	}
}

// SetCoordinator makes broker id (the mock numbers its brokers from 1)
// the coordinator of group: a coordinator move, as the mock plays one
// (nothing is loaded: the mock's groups belong to the cluster).
func (c *Cluster) SetCoordinator(group string, id int32) error {
	kt, key := C.CString("group"), C.CString(group)
	defer C.free(unsafe.Pointer(kt))
	defer C.free(unsafe.Pointer(key))
	return mockErr("coordinator of "+group, C.rd_kafka_mock_coordinator_set(c.mc, kt, key, C.int(id)))
}

// BrokerDown takes broker id down (its connections closed, new ones
// refused); BrokerUp brings it back.
func (c *Cluster) BrokerDown(id int32) error {
	return mockErr(fmt.Sprintf("broker %d down", id), C.rd_kafka_mock_broker_set_down(c.mc, C.int(id)))
}

// BrokerUp brings broker id back.
func (c *Cluster) BrokerUp(id int32) error {
	return mockErr(fmt.Sprintf("broker %d up", id), C.rd_kafka_mock_broker_set_up(c.mc, C.int(id)))
}

func mockErr(what string, code C.int) error {
	if code != 0 {
		return fmt.Errorf("mock: %s: %s", what, C.GoString(C.rd_kafka_err2str(code)))
	}
	return nil
}

// LibraryVersion is the librdkafka version linked in (e.g. "2.15.0").
func LibraryVersion() string {
	_, s := kafka.LibraryVersion()
	return s
}
