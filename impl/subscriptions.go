package impl

import (
	"regexp"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// ---- subscriptions and the topics they resolve to ----

func (g *group) subOf(mi uint32) *subscription {
	if r := g.mem[mi].sub; r != 0 {
		return g.subs.get(r).val
	}
	return &emptySubscription
}

var emptySubscription subscription

// appendSubscriptionKey appends the intern key of (names, regex) to b.
func appendSubscriptionKey(b []byte, names []string, regex codec.NullableString) []byte {
	for _, n := range names {
		b = append(b, byte(len(n)>>24), byte(len(n)>>16), byte(len(n)>>8), byte(len(n)))
		b = append(b, n...)
	}
	if regex.Valid {
		b = append(b, 1)
		b = append(b, regex.Value...)
	} else {
		b = append(b, 0)
	}
	return b
}

// setSubscription gives mi the subscription (names, regex) and moves it
// between the topics' subscriber lists. names (sorted, without repeats)
// may be a request's: a subscription made keeps a copy. The key is
// written into the group's buffer (keyBuf) and made a string only for a
// subscription the group does not have yet.
func (g *group) setSubscription(mi uint32, names []string, regex codec.NullableString) {
	var r uint32
	if len(names) > 0 || regex.Valid {
		g.keyBuf = appendSubscriptionKey(g.keyBuf[:0], names, regex)
		if r = g.subs.idx[string(g.keyBuf)]; r != 0 {
			g.subs.retain(r)
		} else {
			r = g.subs.acquire(string(g.keyBuf), func() *subscription {
				names := slices.Clone(names)
				return &subscription{names: names, regex: regex, topics: g.c.resolveTopics(names, regex)}
			})
		}
	}
	g.moveSubscription(mi, r)
}

// moveSubscription replaces mi's subscription reference by r (already
// acquired) and updates the topic lists.
func (g *group) moveSubscription(mi, r uint32) {
	old := g.mem[mi].sub
	if old == r {
		g.subs.release(r) // the caller's extra reference
		return
	}
	var ot, nt []int32
	if old != 0 {
		ot = g.subs.get(old).val.topics
	}
	if r != 0 {
		nt = g.subs.get(r).val.topics
	}
	// Both lists are ascending: walk them together.
	i, j := 0, 0
	for i < len(ot) || j < len(nt) {
		switch {
		case j == len(nt) || (i < len(ot) && ot[i] < nt[j]):
			g.topicSubs[ot[i]].remove(mi, g.less)
			i++
		case i == len(ot) || nt[j] < ot[i]:
			g.topicSubs[nt[j]].insert(mi, g.less)
			j++
		default:
			i++
			j++
		}
	}
	g.mem[mi].sub = r
	g.subs.release(old)
}

// resolveTopics is the model's subscribedTopics: the named topics plus
// those the regex matches, as topic indexes.
func (c *Coordinator) resolveTopics(names []string, regex codec.NullableString) []int32 {
	var re *regexp.Regexp
	if regex.Valid && regex.Value != "" {
		re, _ = regexp.Compile("^(?:" + regex.Value + ")$")
	}
	var out []int32
	for ti, t := range c.topics {
		in := false
		for _, n := range names {
			if n == t.Name {
				in = true
				break
			}
		}
		if !in && re != nil && re.MatchString(t.Name) {
			in = true
		}
		if in {
			out = append(out, int32(ti))
		}
	}
	return out
}
