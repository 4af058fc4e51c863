module github.com/ghostcheck/ghostcheck/peers/librdkafka

go 1.26.0

require github.com/confluentinc/confluent-kafka-go/v2 v2.15.0

replace github.com/ghostcheck/ghostcheck => ../..
