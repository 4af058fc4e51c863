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
	sub  string // "list" or "remove"
	opts members.Options
	// conn are --bootstrap and its security flags.
	conn      brokerFlags
	verbose   bool
	group     string
	instances []string // remove: the instance ids
	memberIDs []string // remove: the member ids
	reason    string
	asJSON    bool
}

// idList is a flag that may be given more than once; split, if set, also
// cuts each value at commas (instance ids; a member id may hold any
// character, so --member-id is not split).
type idList struct {
	ids   *[]string
	split bool
}

func (l idList) String() string {
	if l.ids == nil {
		return ""
	}
	return strings.Join(*l.ids, ",")
}

func (l idList) Set(v string) error {
	parts := []string{v}
	if l.split {
		parts = strings.Split(v, ",")
	}
	for _, id := range parts {
		if id = strings.TrimSpace(id); id != "" {
			*l.ids = append(*l.ids, id)
		}
	}
	return nil
}

func membersUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: ghostcheck members list   --bootstrap HOST:PORT[,...] --group G [--json] [--timeout D] [TLS and SASL flags]")
	fmt.Fprintln(w, "       ghostcheck members remove --bootstrap HOST:PORT[,...] --group G [--instance-id A[,B,...]]... [--member-id ID]... [--reason TEXT] [--json] [--timeout D] [TLS and SASL flags]")
	fmt.Fprintln(w, "The group's requests go to its coordinator (found with FindCoordinator; a coordinator that moves is followed).")
	fmt.Fprintln(w, "TLS: --tls, --tls-ca FILE, --tls-cert FILE --tls-key FILE, --tls-server-name NAME, --tls-insecure.")
	fmt.Fprintln(w, "SASL: --sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512 --sasl-user USER, the password from --sasl-password-file FILE or "+passwordEnv+".")
}

// runMembers is KIP-345's membership management: list a group's members,
// remove static members by instance id and any member by member id.
func runMembers(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseMembersFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if cfg.sub == "list" {
		g, err := members.List(cfg.opts, cfg.group)
		if err != nil {
			return dialFailed(stderr, "members list", err)
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
	cfg.conn.register(fs, "bootstrap", "the broker or cluster (any broker: the group's coordinator is found)")
	fs.BoolVar(&cfg.verbose, "v", false, "print what finding the group's coordinator met (retries, moves) on stderr")
	fs.StringVar(&cfg.group, "group", "", "consumer group id")
	fs.DurationVar(&cfg.opts.Timeout, "timeout", 10*time.Second, "bound on connecting and on each request")
	fs.StringVar(&cfg.opts.ClientID, "client-id", "ghostcheck-members", "ClientId to send")
	fs.BoolVar(&cfg.asJSON, "json", false, "print JSON")
	fs.Var(idList{&cfg.instances, true}, "instance-id", "remove: group.instance.id values, comma-separated; may be repeated")
	fs.Var(idList{&cfg.memberIDs, false}, "member-id", "remove: a member id (any member, Kafka 4.0+; below LeaveGroup v3 one request each); may be repeated")
	fs.StringVar(&cfg.reason, "reason", "", "remove: reason sent with each member (LeaveGroup v5+)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	cfg.opts.Bootstrap = cfg.conn.addrs()
	if len(cfg.opts.Bootstrap) == 0 || cfg.group == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "ghostcheck members: --bootstrap and --group are required")
		membersUsage(stderr)
		return cfg, 2
	}
	if cfg.sub == "remove" && len(cfg.instances) == 0 && len(cfg.memberIDs) == 0 {
		fmt.Fprintln(stderr, "ghostcheck members remove: --instance-id or --member-id is required")
		return cfg, 2
	}
	var err error
	if cfg.opts.Dialer, err = cfg.conn.dialer(stderr); err != nil {
		return cfg, usageErr(stderr, "members", "%v", err)
	}
	if cfg.verbose {
		cfg.opts.Log = func(line string) { fmt.Fprintln(stderr, "  "+line) }
	}
	return cfg, -1
}

// removeMembers sends the removal and reports each member's result; exit 1
// unless every member was removed.
func removeMembers(cfg membersConfig, stdout, stderr io.Writer) int {
	who := members.Who{InstanceIDs: cfg.instances, MemberIDs: cfg.memberIDs}
	version, rs, err := members.Remove(cfg.opts, cfg.group, who, cfg.reason)
	if err != nil {
		code := dialFailed(stderr, "members remove", err)
		if errors.Is(err, members.ErrNeedsV3) {
			fmt.Fprintln(stderr, "nothing was sent.")
		}
		return code
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
		how := ""
		if version < 3 {
			how = " (one request per member id)"
		}
		fmt.Fprintf(stdout, "LeaveGroup v%d to group %s%s: %d of %d removed\n\n", version, cfg.group, how, ok, len(rs))
		fmt.Fprintf(stdout, "%-24s %-40s %s\n", "INSTANCE ID", "MEMBER ID", "RESULT")
		for _, r := range rs {
			res := r.Error
			if !r.Removed() {
				res += " — " + r.Meaning
			}
			fmt.Fprintf(stdout, "%-24s %-40s %s\n", orDash(r.InstanceID), orDash(r.MemberID), res)
		}
	}
	if ok != len(rs) {
		return 1
	}
	return 0
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
