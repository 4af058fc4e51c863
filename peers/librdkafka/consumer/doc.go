// Package consumer checks librdkafka's KIP-848 consumer (librdkafka 2.15.0,
// bundled with confluent-kafka-go v2.15.0; group.protocol=consumer) against
// the client rules of docs/PROTOCOL.md Part C, through ghostcheck's
// recording proxy (package proxy) to an in-process kfake cluster of three
// brokers, one scenario per test, as internal/clients does for franz-go's
// kgo. Its tests are the package; README.md says how to run them and what
// they found (docs/findings.md's R rows).
package consumer
