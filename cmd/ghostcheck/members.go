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

// runMembers is KIP-345's membership management: list a group's members,
// remove static members by instance id.
func runMembers(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	usage := func() {
		fmt.Fprintln(stderr, "usage: ghostcheck members list   --bootstrap HOST:PORT --group G [--json] [--timeout D]")
		fmt.Fprintln(stderr, "       ghostcheck members remove --bootstrap HOST:PORT --group G --instance-id A[,B,...] [--reason TEXT] [--json] [--timeout D]")
	}
	if len(args) == 0 {
		usage()
		return 2
	}
	sub := args[0]
	if sub == "-h" || sub == "--help" {
		usage()
		return 0
	}
	if sub != "list" && sub != "remove" {
		fmt.Fprintf(stderr, "ghostcheck members: unknown subcommand %q\n", sub)
		usage()
		return 2
	}
	fs := flag.NewFlagSet("members "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o members.Options
	fs.StringVar(&o.Bootstrap, "bootstrap", "", "broker address HOST:PORT (the group's coordinator)")
	group := fs.String("group", "", "consumer group id")
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Second, "bound on connecting and on each request")
	fs.StringVar(&o.ClientID, "client-id", "ghostcheck-members", "ClientId to send")
	asJSON := fs.Bool("json", false, "print JSON")
	instances := fs.String("instance-id", "", "remove: comma-separated group.instance.id values")
	reason := fs.String("reason", "", "remove: reason sent with each member (LeaveGroup v5+)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if o.Bootstrap == "" || *group == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "ghostcheck members: --bootstrap and --group are required")
		usage()
		return 2
	}
	if sub == "list" {
		g, err := members.List(o, *group)
		if err != nil {
			fmt.Fprintln(stderr, "ghostcheck members list:", err)
			return 1
		}
		if *asJSON {
			return printJSON(stdout, stderr, g)
		}
		fmt.Fprint(stdout, members.Table(g))
		return 0
	}
	var ids []string
	for _, id := range strings.Split(*instances, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		fmt.Fprintln(stderr, "ghostcheck members remove: --instance-id is required")
		return 2
	}
	version, rs, err := members.Remove(o, *group, ids, *reason)
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
	if *asJSON {
		if code := printJSON(stdout, stderr, map[string]any{"group": *group, "leaveGroupVersion": version, "members": rs}); code != 0 {
			return code
		}
	} else {
		fmt.Fprintf(stdout, "LeaveGroup v%d to group %s: %d of %d removed\n\n", version, *group, ok, len(rs))
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
