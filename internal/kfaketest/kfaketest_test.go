package kfaketest_test

import (
	"context"
	"go/parser"
	"go/token"
	"io/fs"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/wire"
)

// A started kfake serves consumer groups with the timers GroupTimers
// gave it: a member that joins is told the heartbeat interval set.
func TestStartWithGroupTimers(t *testing.T) {
	c := kfaketest.Start(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "alpha"), kfaketest.GroupTimers(2*time.Second, 150*time.Millisecond))
	addr := c.ListenAddrs()[0]
	if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" {
		t.Fatalf("kfake listens on %s, want 127.0.0.1", addr)
	}
	hm, err := wire.NewHeaders(codec.Str("kfaketest"), codec.UUID{1})
	if err != nil {
		t.Fatal(err)
	}
	conn, _, err := (&wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}}).Dial(context.Background(), addr, hm)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := conn.RoundTrip(hm.Next(codec.ConsumerGroupHeartbeat, 0), testreq.Join("g", "m1", 30000, "alpha"))
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != codec.None || r.HeartbeatIntervalMs != 150 {
		t.Fatalf("join: %v, heartbeat interval %d ms, want none and 150", r.ErrorCode, r.HeartbeatIntervalMs)
	}
}

// kfake (and the rest of franz-go) is a test-only dependency of the
// packages: no non-test file of a library package, nor of the ghostcheck
// command, imports it, so `go list -deps ./cmd/ghostcheck` lists none of
// it. (A command of its own that runs kfake may: it is built only on
// purpose.) This package, which needs package testing, is imported from
// _test.go files only.
func TestOnlyTestsImportIt(t *testing.T) {
	root := filepath.Join("..", "..")
	self := filepath.Join(root, "internal", "kfaketest")
	command := filepath.Join(root, "cmd", "ghostcheck")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "peers" || name == "testdata" || strings.HasPrefix(name, ".")) || path == self {
				return filepath.SkipDir // peers/ is a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen++
		library := f.Name.Name != "main" || filepath.Dir(path) == command
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "github.com/ghostcheck/ghostcheck/internal/kfaketest" || library && strings.HasPrefix(p, "github.com/twmb/franz-go") {
				t.Errorf("%s imports %s: only tests may", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("read %d non-test Go files under %s: the walk missed the module", seen, root)
	}
}
