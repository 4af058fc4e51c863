package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/internal/members"
)

// membersConfig is what `ghostcheck members list|remove` was asked to do.
type membersConfig struct {
	sub       string // "list" or "remove"
	opts      members.Options
	group     string
	instances []string // remove: the instance ids
	reason    string
	asJSON    bool
}

func membersUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: ghostcheck members list   --bootstrap HOST:PORT --group G [--json] [--timeout D]")
	fmt.Fprintln(w, "       ghostcheck members remove --bootstrap HOST:PORT --group G --instance-id A[,B,...] [--reason TEXT] [--json] [--timeout D]")
}

// runMembers is KIP-345's membership management: list a group's members,
// remove static members by instance id.
func runMembers(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseMembersFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if cfg.sub == "list" {
		g, err := members.List(cfg.opts, cfg.group)
		if err != nil {
			fmt.Fprintln(stderr, "ghostcheck members list:", err)
			return 1
		}
		if cfg.asJSON {
			return printJSON(stdout, stderr, g)
		}
		fmt.Fprint(stdout, members.Table(g))
		return 0
	}
	return removeMembers(cfg, stdout, stderr)
}

// parseMembersFlags reads the subcommand and its flags; a status >= 0 ends
// the command with it.
func parseMembersFlags(args []string, stderr io.Writer) (membersConfig, int) {
	var cfg membersConfig
	if len(args) == 0 {
		membersUsage(stderr)
		return cfg, 2
	}
	cfg.sub = args[0]
	switch cfg.sub {
	case "-h", "--help":
		membersUsage(stderr)
		return cfg, 0
	case "list", "remove":
	default:
		fmt.Fprintf(stderr, "ghostcheck members: unknown subcommand %q\n", cfg.sub)
		membersUsage(stderr)
		return cfg, 2
	}
	fs := flag.NewFlagSet("members "+cfg.sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.opts.Bootstrap, "bootstrap", "", "broker address HOST:PORT (the group's coordinator)")
	fs.StringVar(&cfg.group, "group", "", "consumer group id")
	fs.DurationVar(&cfg.opts.Timeout, "timeout", 10*time.Second, "bound on connecting and on each request")
	fs.StringVar(&cfg.opts.ClientID, "client-id", "ghostcheck-members", "ClientId to send")
	fs.BoolVar(&cfg.asJSON, "json", false, "print JSON")
	instances := fs.String("instance-id", "", "remove: comma-separated group.instance.id values")
	fs.StringVar(&cfg.reason, "reason", "", "remove: reason sent with each member (LeaveGroup v5+)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	if cfg.opts.Bootstrap == "" || cfg.group == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "ghostcheck members: --bootstrap and --group are required")
		membersUsage(stderr)
		return cfg, 2
	}
	for _, id := range strings.Split(*instances, ",") {
		if id = strings.TrimSpace(id); id != "" {
			cfg.instances = append(cfg.instances, id)
		}
	}
	if cfg.sub == "remove" && len(cfg.instances) == 0 {
		fmt.Fprintln(stderr, "ghostcheck members remove: --instance-id is required")
		return cfg, 2
	}
	return cfg, -1
}

// removeMembers sends the removal and reports each member's result; exit 1
// unless every member was removed.
func removeMembers(cfg membersConfig, stdout, stderr io.Writer) int {
	version, rs, err := members.Remove(cfg.opts, cfg.group, cfg.instances, cfg.reason)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck members remove:", err)
		if errors.Is(err, members.ErrNeedsV3) {
			fmt.Fprintln(stderr, "nothing was sent.")
		}
		return 1
	}
	ok := 0
	for _, r := range rs {
		if r.Removed() {
			ok++
		}
	}
	if cfg.asJSON {
		if code := printJSON(stdout, stderr, map[string]any{"group": cfg.group, "leaveGroupVersion": version, "members": rs}); code != 0 {
			return code
		}
	} else {
		fmt.Fprintf(stdout, "LeaveGroup v%d to group %s: %d of %d removed\n\n", version, cfg.group, ok, len(rs))
		fmt.Fprintf(stdout, "%-24s %-40s %s\n", "INSTANCE ID", "MEMBER ID", "RESULT")
		for _, r := range rs {
			res := r.Error
			if !r.Removed() {
				res += " — " + r.Meaning
			}
			mid := r.MemberID
			if mid == "" {
				mid = "-"
			}
			fmt.Fprintf(stdout, "%-24s %-40s %s\n", r.InstanceID, mid, res)
		}
	}
	if ok != len(rs) {
		return 1
	}
	return 0
}
