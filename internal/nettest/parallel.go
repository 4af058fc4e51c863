package nettest

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitingTests is how many tests ParallelWaits lets run side by side.
const WaitingTests = 8

// ParallelWaits is for the TestMain of a package whose tests wait on real
// time over the network (sessions running out, brokers stopping, clients
// heartbeating: a minute of waiting to a second or two of CPU). They share
// a core well, and -test.parallel's default, GOMAXPROCS, would have a
// 2-core machine wait them out two at a time: unless -test.parallel is
// given, ParallelWaits raises it to WaitingTests. Call it before m.Run;
// it parses the command line.
func ParallelWaits() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given || runtime.GOMAXPROCS(0) >= WaitingTests {
		return
	}
	if err := flag.Set("test.parallel", strconv.Itoa(WaitingTests)); err != nil {
		panic("nettest: -test.parallel: " + err.Error()) // only outside a test binary
	}
}
