package conformance_test

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// waitingTests is how many of this package's tests run side by side:
// they wait on real time (sessions running out, brokers stopping; about a
// minute of waiting to a second or two of CPU), so they share a core well,
// and GOMAXPROCS, the -test.parallel default, would have a 2-core machine
// wait them out two at a time. -test.parallel, when given, decides.
const waitingTests = 8

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < waitingTests {
		if err := flag.Set("test.parallel", strconv.Itoa(waitingTests)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
