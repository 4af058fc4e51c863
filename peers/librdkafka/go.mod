module github.com/ghostcheck/ghostcheck/peers/librdkafka

go 1.26.0

require (
	github.com/confluentinc/confluent-kafka-go/v2 v2.15.0
	github.com/ghostcheck/ghostcheck v0.0.0-00010101000000-000000000000
	github.com/twmb/franz-go v1.22.3
	github.com/twmb/franz-go/pkg/kfake v0.0.0-20260918054303-01f206a7e32c
	go.uber.org/goleak v1.3.0
)

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.1 // indirect
	github.com/xdg-go/scram v1.4.0 // indirect
	github.com/xdg-go/stringprep v1.0.4 // indirect
	golang.org/x/text v0.42.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

replace github.com/ghostcheck/ghostcheck => ../..
