package codec_test

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"pgregory.net/rapid"
)

// Messages read back from their JSON form exactly: histories and
// `ghostcheck decode` write messages as JSON, and a history is read back
// through Lookup(key).NewMessage and json.Unmarshal. JSON strings carry
// text, so the drawn strings are made valid UTF-8 first (the wire allows
// any bytes).
func TestJSONRoundTrip(t *testing.T) {
	forEachMessageVersion(t, func(t *testing.T, k codectest.Kind, v int16) {
		rapid.Check(t, func(t *rapid.T) {
			x := codectest.Message(k, v).Draw(t, "x")
			validUTF8(reflect.ValueOf(x))
			b, err := json.Marshal(x)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			y := codec.Lookup(k.Key).NewMessage(k.Response)
			if err := json.Unmarshal(b, y); err != nil {
				t.Fatalf("unmarshal: %v\n%s", err, b)
			}
			if r, ok := x.(*codec.SaslAuthenticateRequest); ok {
				// The one message whose JSON form leaves a field out on
				// purpose: the token, which may hold a password.
				r.AuthBytes = nil
			}
			if !reflect.DeepEqual(x, y) {
				t.Fatalf("JSON round trip:\n got %#v\nwant %#v\n%s", y, x, b)
			}
		})
	})
}

// The JSON form of a SaslAuthenticateRequest never shows its token (a
// PLAIN token holds the password), and reads back as an empty token; a
// token written by encoding/json's default form still reads.
func TestJSONRedactsSaslToken(t *testing.T) {
	const pass = "pw-Sesame-4711"
	m := &codec.SaslAuthenticateRequest{AuthBytes: []byte("\x00alice\x00" + pass)}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), pass) || strings.Contains(string(b), base64.StdEncoding.EncodeToString(m.AuthBytes)) || !strings.Contains(string(b), "[redacted]") {
		t.Fatalf("JSON %s", b)
	}
	var back codec.SaslAuthenticateRequest
	if err := json.Unmarshal(b, &back); err != nil || back.AuthBytes != nil {
		t.Fatalf("read back %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"AuthBytes":"AGEAYg=="}`), &back); err != nil || string(back.AuthBytes) != "\x00a\x00b" {
		t.Fatalf("a base64 token: %q, %v", back.AuthBytes, err)
	}
	if err := json.Unmarshal([]byte(`{"AuthBytes":7}`), &back); err == nil {
		t.Fatal("a number for the token was read")
	}
}

// validUTF8 replaces the invalid bytes of every string in v.
func validUTF8(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			validUTF8(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			validUTF8(v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			validUTF8(v.Index(i))
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(strings.ToValidUTF8(v.String(), "?"))
		}
	}
}
