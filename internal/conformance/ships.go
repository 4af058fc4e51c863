package conformance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/internal/releases"
)

// Ships says which Apache Kafka releases carry a case's rule, as its
// Source says in words. `check --kafka-version` uses it so that a broker
// of a given release is not failed on a rule that release does not have:
// trunk-only fixes, open PRs and KIPs accepted but not implemented.
type Ships struct {
	// Since is the first release that ships the rule, [major, minor];
	// meaningful when Shipped.
	Since [2]int
	// Shipped: some release carries the rule (Since, or every release when
	// Every).
	Shipped bool
	// Every: every release that has the API carries it.
	Every bool
}

// NewestRelease is the newest Apache Kafka release ghostcheck knows of:
// what `ghostcheck check` holds a broker to by default, so that a broker
// doing exactly what that release does passes. Rules not shipped in it
// (trunk only, an open PR, a KIP accepted but not implemented) are then
// N/A, shown and not counted; ReleaseNext holds a broker to them too.
const NewestRelease = releases.NewestName

// ReleaseNext, as a release a broker is held to, is every rule ghostcheck
// checks, shipped or not: a broker ahead of the newest release (Kafka's
// trunk with the open PRs and KIPs ghostcheck follows).
const ReleaseNext = "next"

// ParseHeldTo reads what `check --kafka-version` holds a broker to: a
// release (ParseRelease) or ReleaseNext.
func ParseHeldTo(s string) error {
	if strings.TrimSpace(s) == ReleaseNext {
		return nil
	}
	_, err := ParseRelease(s)
	return err
}

// Markers of a source whose rule no known release carries. KAFKA-19233 is
// on trunk, but which release first carries it is unverified, so "trunk
// only" counts as no release.
var notShipped = []string{"trunk only", "not shipped", "open PR"}

var kafkaRelease = regexp.MustCompile(`Kafka (\d+)\.(\d+)`)

// ShipsOf reads a case's Source. A source that names "trunk only", "not
// shipped" or an "open PR" is carried by no release, whatever else it
// names; "every Kafka release" by all; otherwise the highest "Kafka X.Y"
// it names is the first release that carries the whole rule (a source
// "KIP-345, Kafka 2.4; consumer groups Kafka 4.0" ships in 4.0). A source
// that says none of these is an error, so that a case cannot go
// unclassified.
func ShipsOf(source string) (Ships, error) {
	for _, m := range notShipped {
		if strings.Contains(source, m) {
			return Ships{}, nil
		}
	}
	if strings.Contains(source, "every Kafka release") {
		return Ships{Shipped: true, Every: true}, nil
	}
	var s Ships
	for _, m := range kafkaRelease.FindAllStringSubmatch(source, -1) {
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		if v := [2]int{major, minor}; !s.Shipped || less(s.Since, v) {
			s.Since, s.Shipped = v, true
		}
	}
	if !s.Shipped {
		return Ships{}, fmt.Errorf("source %q names no Kafka release (\"Kafka X.Y\", \"every Kafka release\") and no marker of an unshipped rule (%s)", source, strings.Join(notShipped, ", "))
	}
	return s, nil
}

func less(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// In reports whether the release ("4.1", "3.9.1") carries the rule. A
// release that does not parse carries nothing.
func (s Ships) In(release string) bool {
	v, err := ParseRelease(release)
	if err != nil || !s.Shipped {
		return false
	}
	return s.Every || !less(v, s.Since)
}

// String says where the rule ships: "Kafka 4.0", "every Kafka release",
// "no known release".
func (s Ships) String() string {
	switch {
	case !s.Shipped:
		return "no known release"
	case s.Every:
		return "every Kafka release"
	}
	return fmt.Sprintf("Kafka %d.%d", s.Since[0], s.Since[1])
}

// ParseRelease reads an Apache Kafka release, "MAJOR.MINOR" or
// "MAJOR.MINOR.PATCH" (the patch is not compared: a rule ships with a
// minor release).
func ParseRelease(release string) ([2]int, error) {
	parts := strings.Split(strings.TrimSpace(release), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return [2]int{}, fmt.Errorf("Kafka release %q: want MAJOR.MINOR, e.g. 4.1", release)
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 999 {
			return [2]int{}, fmt.Errorf("Kafka release %q: want MAJOR.MINOR, e.g. 4.1", release)
		}
		v[i] = n
	}
	return [2]int{v[0], v[1]}, nil
}
