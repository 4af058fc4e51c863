package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
)

// runDemo builds the first request of a KIP-1082/KIP-1313 consumer (a
// ConsumerGroupHeartbeat v1 join carrying its own member id and, in the
// header, its client instance id), encodes it, and decodes it back, printing
// both forms. It is the codec's smallest end-to-end use.
func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck demo")
		fmt.Fprintln(stderr, "Encodes a KIP-1082 join (ConsumerGroupHeartbeat v1 with a client-made member id and a KIP-1313 header) and decodes it back.")
	}
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	instance := codec.UUID(uuid.New())
	member := uuid.NewString()
	h := codec.RequestHeader{
		RequestApiKey:     codec.ConsumerGroupHeartbeat,
		RequestApiVersion: 1,
		CorrelationId:     1,
		ClientId:          codec.Str("ghostcheck-demo"),
		ClientInstanceId:  codec.SomeUUID(instance),
	}
	join := &codec.ConsumerGroupHeartbeatRequest{
		GroupId:              "orders",
		MemberId:             member,
		MemberEpoch:          0,
		RebalanceTimeoutMs:   300000,
		SubscribedTopicNames: []string{"alpha", "beta"},
		TopicPartitions:      []codec.ConsumerGroupHeartbeatTopicPartitions{},
	}
	frame, err := codec.AppendRequest(nil, &h, join)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck demo:", err)
		return 1
	}
	fmt.Fprintf(stdout, "A KIP-1082 join (ConsumerGroupHeartbeat v1, epoch 0, client-made member id %s)\n", member)
	fmt.Fprintf(stdout, "with the KIP-1313 client instance id %s in request header v2, tag 0:\n\n", instance.Hex())
	fmt.Fprintf(stdout, "  %s\n\n", hex.EncodeToString(frame))
	fmt.Fprintln(stdout, "decoded by 'ghostcheck decode':")
	body, _, err := codec.SplitFrame(frame, 0)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck demo:", err)
		return 1
	}
	out, err := decodeFrame(body, "", true)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck demo:", err)
		return 1
	}
	return printJSON(stdout, stderr, out)
}
