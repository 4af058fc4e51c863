package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// decoded is the JSON shape decode prints.
type decoded struct {
	Kind          string        `json:"kind"` // "request" or "response"
	API           string        `json:"api"`
	ApiKey        codec.APIKey  `json:"apiKey"`
	Version       int16         `json:"version"`
	HeaderVersion int16         `json:"headerVersion"`
	Header        any           `json:"header"`
	Body          codec.Message `json:"body"`
}

func runDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	response := fs.String("response", "", "decode a response to a request of `KEY:VERSION` (e.g. 68:1); requests need nothing")
	strict := fs.Bool("strict", false, "report trailing bytes and out-of-order tagged fields as errors")
	sizePrefix := fs.String("size-prefix", "auto", "whether the input starts with the 4-byte frame size: auto, yes or no")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck decode [flags] [HEX]")
		fmt.Fprintln(stderr, "Decodes one Kafka frame given as hex (argument or stdin; spaces, newlines and 0x are ignored).")
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	var text string
	switch fs.NArg() {
	case 0:
		b, err := io.ReadAll(io.LimitReader(stdin, 4*codec.DefaultMaxFrameSize))
		if err != nil {
			fmt.Fprintln(stderr, "ghostcheck decode:", err)
			return 1
		}
		text = string(b)
	case 1:
		text = fs.Arg(0)
	default:
		fs.Usage()
		return 2
	}
	raw, err := parseHex(text)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck decode:", err)
		return 1
	}
	frame, err := stripSizePrefix(raw, *sizePrefix)
	if err == nil {
		var out *decoded
		if out, err = decodeFrame(frame, *response, *strict); err == nil {
			return printJSON(stdout, stderr, out)
		}
	}
	fmt.Fprintln(stderr, "ghostcheck decode:", err)
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailed // a frame that does not decode is bad input
}

func printJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(stderr, "ghostcheck:", err)
		return 1
	}
	return 0
}

type usageError string

func (e usageError) Error() string { return string(e) }

func parseHex(s string) ([]byte, error) {
	var b strings.Builder
	for _, f := range strings.Fields(s) {
		f = strings.TrimPrefix(strings.TrimPrefix(f, "0x"), "0X")
		b.WriteString(f)
	}
	h := b.String()
	if h == "" {
		return nil, errors.New("no input: give the frame as hex")
	}
	out, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("input is not hex: %v", err)
	}
	return out, nil
}

// stripSizePrefix removes the 4-byte frame size when present. In auto mode
// the prefix is assumed present when it equals the number of bytes after it.
func stripSizePrefix(b []byte, mode string) ([]byte, error) {
	has := false
	switch mode {
	case "yes":
		has = true
	case "no":
	case "auto":
		has = len(b) >= 4 && int(int32(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]))) == len(b)-4
	default:
		return nil, usageError("--size-prefix must be auto, yes or no")
	}
	if !has {
		return b, nil
	}
	frame, rest, err := codec.SplitFrame(b, codec.DefaultMaxFrameSize)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%d bytes after the frame", len(rest))
	}
	return frame, nil
}

func decodeFrame(frame []byte, response string, strict bool) (*decoded, error) {
	opts := codec.DecodeOptions{Strict: strict}
	if response == "" {
		h, body, err := codec.DecodeRequest(frame, opts)
		if err != nil {
			return nil, err
		}
		hv, _ := h.HeaderVersion()
		return &decoded{Kind: "request", API: h.RequestApiKey.String(), ApiKey: h.RequestApiKey,
			Version: h.RequestApiVersion, HeaderVersion: hv, Header: h, Body: body}, nil
	}
	key, version, err := parseKeyVersion(response)
	if err != nil {
		return nil, err
	}
	h, body, err := codec.DecodeResponse(frame, key, version, opts)
	if err != nil {
		return nil, err
	}
	hv, _ := codec.ResponseHeaderVersion(key, version)
	return &decoded{Kind: "response", API: key.String(), ApiKey: key, Version: version, HeaderVersion: hv, Header: h, Body: body}, nil
}

func parseKeyVersion(s string) (codec.APIKey, int16, error) {
	k, v, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, usageError("--response wants KEY:VERSION, e.g. 68:1")
	}
	key, err1 := strconv.ParseInt(k, 10, 16)
	ver, err2 := strconv.ParseInt(v, 10, 16)
	if err1 != nil || err2 != nil {
		return 0, 0, usageError("--response wants KEY:VERSION, e.g. 68:1")
	}
	if codec.Lookup(codec.APIKey(key)) == nil {
		return 0, 0, usageError(fmt.Sprintf("--response: api key %d is not one ghostcheck decodes", key))
	}
	return codec.APIKey(key), int16(ver), nil
}
