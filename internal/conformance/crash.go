package conformance

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A broker that stops answering during a case (it died, or it hangs) is a
// finding of its own: the case is a CRASH, and the report names the last
// request the case sent, which is written out as a frame a user can
// decode (`ghostcheck decode < FILE`) and resend.

// maxRecorded bounds the frames a case keeps: cases send a handful.
const maxRecorded = 256

// recorder is a case's connection, keeping what the case writes.
type recorder struct {
	net.Conn
	p *probe
}

func (r recorder) Write(b []byte) (int, error) {
	r.p.record(b)
	return r.Conn.Write(b)
}

// record keeps the frames of one write: each whole frame on its own, and
// bytes that are not a whole frame (a test's garbage) as they are.
func (p *probe) record(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(b) > 0 && len(p.sent) < maxRecorded {
		n := len(b)
		if len(b) >= 4 {
			if size := int(binary.BigEndian.Uint32(b)); size >= 0 && size+4 <= len(b) {
				n = size + 4
			}
		}
		p.sent = append(p.sent, append([]byte(nil), b[:n]...))
		b = b[n:]
	}
}

// crash turns r into a CRASH: the broker stopped answering (why) after
// the case's last request; the broker's exit status and last words, when
// it was launched by us; the frame, written to out.
func (p *probe) crash(r *Result, why error, b *Broker, out string) {
	what := "before the case sent a request"
	var last []byte
	if n := len(p.sent); n > 0 {
		last = p.sent[n-1]
		what = "after " + describeFrame(last)
		r.Frame = hex.EncodeToString(last)
	}
	obs := fmt.Sprintf("the broker stopped answering %s: %v", what, why)
	if st, words := b.exit(); st != "" || words != "" {
		obs += fmt.Sprintf("; its process: %s", orNone(st, "still running"))
		if words != "" {
			obs += "; its stderr ends: " + strings.ReplaceAll(words, "\n", " | ")
		}
	}
	if r.Status == Fail || r.Status == Skip {
		obs += "; the case saw: " + r.Observed
	}
	if r.Expected == "" {
		r.Expected = "an answer, and the broker still serving"
	}
	r.Status, r.Observed = Crash, obs
	if out != "" && last != nil {
		if f, err := writeFrames(out, r.Name, p.sent); err == nil {
			r.FrameFile = f
		} else {
			r.Observed += "; writing the frame: " + err.Error()
		}
	}
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// writeFrames writes the last frame as out/crash-CASE.hex (hex, size
// prefix included, one line: what `ghostcheck decode` reads), and when the
// case sent more than one, all of them in order, one a line, as
// out/crash-CASE.all.hex (`xxd -r -p` turns either back into bytes).
func writeFrames(out, name string, frames [][]byte) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	base := filepath.Join(out, "crash-"+fileName(name))
	last := base + ".hex"
	if err := os.WriteFile(last, []byte(hex.EncodeToString(frames[len(frames)-1])+"\n"), 0o644); err != nil {
		return "", err
	}
	if len(frames) > 1 {
		var b strings.Builder
		for _, f := range frames {
			b.WriteString(hex.EncodeToString(f))
			b.WriteByte('\n')
		}
		if err := os.WriteFile(base+".all.hex", []byte(b.String()), 0o644); err != nil {
			return "", err
		}
	}
	return last, nil
}

// fileName makes a case name a file name: A1/v1-join → A1_v1-join.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, name)
}

// describeFrame says what a request frame (size prefix included) is: its
// api, version and body, or why it does not decode.
func describeFrame(frame []byte) string {
	if len(frame) < 4 {
		return fmt.Sprintf("%d bytes that are not a frame", len(frame))
	}
	h, body, err := codec.DecodeRequest(frame[4:], codec.DecodeOptions{})
	if err != nil {
		return fmt.Sprintf("a frame of %d bytes (api key %d v%d) that does not decode: %v", len(frame), h.RequestApiKey, h.RequestApiVersion, err)
	}
	j, err := json.Marshal(body)
	if err != nil {
		return fmt.Sprintf("%v v%d", h.RequestApiKey, h.RequestApiVersion)
	}
	return fmt.Sprintf("%v v%d %s", h.RequestApiKey, h.RequestApiVersion, j)
}
