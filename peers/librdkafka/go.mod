module github.com/ghostcheck/ghostcheck/peers/librdkafka

go 1.26.0

require (
	github.com/confluentinc/confluent-kafka-go/v2 v2.15.0
	github.com/ghostcheck/ghostcheck v0.0.0-00010101000000-000000000000
)

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

replace github.com/ghostcheck/ghostcheck => ../..
