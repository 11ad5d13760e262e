package hostmod

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// encodingSamples are texts with ASCII, CRLF, two- and three-byte characters and a
// character outside the BMP (a surrogate pair in UTF-16).
var encodingSamples = []string{
	"",
	"a",
	"hello\r\nworld\r\n",
	"caf\u00e9 \u201cquoted\u201d \u20ac\n",
	"emoji \U0001F600 and \U00010348\n",
}

func TestEncodingRoundTrips(t *testing.T) {
	for _, enc := range []string{encUTF8, encUTF8BOM, encUTF16LE} { // UTF-16BE is read as bytes: TestUTF16BEReadAsBytes
		for _, text := range encodingSamples {
			raw, err := encodeText([]byte(text), enc)
			if err != nil {
				t.Fatalf("encodeText(%q, %s): %v", text, enc, err)
			}
			if text == "" && enc == encUTF8 {
				continue // nothing to detect
			}
			got, gotEnc := decodeText(raw)
			if string(got) != text || gotEnc != enc {
				t.Errorf("decodeText(encodeText(%q, %s)) = %q, %s", text, enc, got, gotEnc)
			}
			// The streaming decoder of fs.lines agrees, whatever the read sizes.
			r, rEnc, err := decodingReader(iotest.OneByteReader(bytes.NewReader(raw)))
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := io.ReadAll(iotest.OneByteReader(r))
			if err != nil || string(streamed) != text || rEnc != enc {
				t.Errorf("decodingReader(%s %q) = %q, %s, %v", enc, text, streamed, rEnc, err)
			}
		}
	}
}

func TestEncodingBytes(t *testing.T) {
	for _, c := range []struct {
		enc, text string
		raw       []byte
	}{
		{encUTF8, "hi", []byte("hi")},
		{encUTF8BOM, "hi", []byte{0xEF, 0xBB, 0xBF, 'h', 'i'}},
		{encUTF16LE, "h\u00e9\n", []byte{0xFF, 0xFE, 'h', 0, 0xE9, 0, '\n', 0}},
		{encUTF16BE, "h\u00e9\n", []byte{0xFE, 0xFF, 0, 'h', 0, 0xE9, 0, '\n'}},
		{encUTF16LE, "\U0001F600", []byte{0xFF, 0xFE, 0x3D, 0xD8, 0x00, 0xDE}},
	} {
		raw, err := encodeText([]byte(c.text), c.enc)
		if err != nil || !bytes.Equal(raw, c.raw) {
			t.Errorf("encodeText(%q, %s) = % x, %v; want % x", c.text, c.enc, raw, err, c.raw)
		}
	}
	if _, err := encodeText([]byte("x"), "latin1"); err == nil {
		t.Error("encodeText accepted an unknown encoding")
	}
}

// TestUTF16BEReadAsBytes: a file that fs.write wrote in UTF-16BE is read back as the
// bytes it holds, in encoding utf8, as the original's tools read it.
func TestUTF16BEReadAsBytes(t *testing.T) {
	raw, err := encodeText([]byte("hi\n"), encUTF16BE)
	if err != nil {
		t.Fatal(err)
	}
	got, enc := decodeText(raw)
	r, rEnc, err := decodingReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	streamed, _ := io.ReadAll(r)
	if !bytes.Equal(got, raw) || enc != encUTF8 || !bytes.Equal(streamed, raw) || rEnc != encUTF8 {
		t.Errorf("decodeText = % x, %s; decodingReader = % x, %s; want % x, utf8", got, enc, streamed, rEnc, raw)
	}
}

func TestEncodingMalformed(t *testing.T) {
	for _, c := range []struct {
		raw  []byte
		want string
	}{
		{[]byte{0xFF, 0xFE, 'a', 0, 'b'}, "a\uFFFD"},        // an odd final byte
		{[]byte{0xFF, 0xFE, 0x3D, 0xD8, 'a', 0}, "\uFFFDa"}, // a lone high surrogate
		{[]byte{0xFF, 0xFE, 0x00, 0xDE, 'a', 0}, "\uFFFDa"}, // a lone low surrogate
		{[]byte{0xFF, 0xFE, 0x3D, 0xD8}, "\uFFFD"},          // a high surrogate at the end
		{[]byte{0xEF, 0xBB}, "\xEF\xBB"},                    // not a whole mark: UTF-8
		{[]byte{0xFF, 0xFE}, ""},                            // only a mark
		{[]byte{'a', 0xFF, 0xFE}, "a\xFF\xFE"},              // a mark not at the start
	} {
		got, _ := decodeText(c.raw)
		r, _, _ := decodingReader(bytes.NewReader(c.raw))
		streamed, _ := io.ReadAll(r)
		if string(got) != c.want || string(streamed) != c.want {
			t.Errorf("decode(% x) = %q, streamed %q; want %q", c.raw, got, streamed, c.want)
		}
	}
	// Invalid UTF-8 is written as U+FFFD.
	raw, _ := encodeText([]byte("a\xFFb"), encUTF16LE)
	if want := []byte{0xFF, 0xFE, 'a', 0, 0xFD, 0xFF, 'b', 0}; !bytes.Equal(raw, want) {
		t.Errorf("encodeText(invalid) = % x, want % x", raw, want)
	}
}

// runFS runs body, a function of the path p, with the fs module for root, as a
// call that may write, and returns its results.
func runFS(t *testing.T, root, body, p string) []any {
	t.Helper()
	rs, err := newRootSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := bindings.Compile("t.lua", []byte("local fs = require('fs')\nreturn function(p)\n"+body+"\nend"), bindings.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	vm := bindings.NewVM(bindings.Config{Modules: []*bindings.Module{rs.fsModule()}})
	defer vm.Close()
	if err := vm.Run(prog); err != nil {
		t.Fatal(err)
	}
	out, err := vm.Call(&bindings.Call{Context: context.Background(), Access: bindings.AccessWrite}, vm.Main, lua.LString(p))
	if err != nil {
		t.Fatalf("lua: %v", err)
	}
	vals := make([]any, len(out))
	for i, v := range out {
		vals[i], _ = vm.FromLua(v)
	}
	return vals
}

func TestFSEncodings(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "w.txt")
	text := "one \u00e9\r\ntwo \U0001F600\r\n"
	raw, _ := encodeText([]byte(text), encUTF16LE)
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	got := runFS(t, root, `
		local content, info = fs.read(p)
		local lines, linfo = fs.lines(p, {offset = 2})
		return content, info.encoding, info.hash, lines, linfo.encoding, linfo.hash, linfo.totalLines`, p)
	want := []any{text, encUTF16LE, hashHex(raw), "two \U0001F600", encUTF16LE, hashHex(raw), float64(2)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %#v, want %#v", i+1, got[i], want[i])
		}
	}

	// Writing in the encoding read keeps the file's bytes; the hash is of the bytes.
	got = runFS(t, root, `
		local content, info = fs.read(p)
		local w = assert(fs.write(p, content:gsub("one", "ONE"), {ifHash = info.hash, encoding = info.encoding}))
		return w.hash, w.encoding`, p)
	want8, _ := encodeText([]byte("ONE \u00e9\r\ntwo \U0001F600\r\n"), encUTF16LE)
	if b, _ := os.ReadFile(p); !bytes.Equal(b, want8) || got[0] != hashHex(want8) || got[1] != encUTF16LE {
		t.Errorf("after write: % x (hash %v, %v); want % x", b, got[0], got[1], want8)
	}

	// A UTF-8 mark is hidden from Lua and kept by writing with encoding "utf8bom";
	// a file without one is "utf8", and the default.
	if err := os.WriteFile(p, []byte("\xEF\xBB\xBFbom\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runFS(t, root, `
		local content, info = fs.read(p)
		local _, linfo = fs.lines(p)
		assert(fs.write(p, content .. "more\n", {encoding = info.encoding}))
		return content, info.encoding, linfo.encoding`, p)
	if got[0] != "bom\n" || got[1] != encUTF8BOM || got[2] != encUTF8BOM {
		t.Errorf("utf8bom read = %#v", got)
	}
	if b, _ := os.ReadFile(p); string(b) != "\xEF\xBB\xBFbom\nmore\n" {
		t.Errorf("utf8bom written = %q", b)
	}
	got = runFS(t, root, `
		local w = assert(fs.write(p, "plain\n"))
		local _, info = fs.read(p)
		return w.encoding, info.encoding`, p)
	if got[0] != encUTF8 || got[1] != encUTF8 {
		t.Errorf("utf8 = %#v", got)
	}
	got = runFS(t, root, `return pcall(fs.write, p, "x", {encoding = "latin1"})`, p)
	if got[0] != false {
		t.Errorf("an unknown encoding was accepted: %#v", got)
	}
}

// TestUTF8CheckAcrossWrites checks utf8Check against utf8.Valid for every way of
// splitting texts in two, so that a sequence cut by a write is judged whole.
func TestUTF8CheckAcrossWrites(t *testing.T) {
	texts := []string{"a\u00e9\u20ac\U0001F600z", "\xe2\x82", "\xe2\x82a", "\xed\xa0\x80", "\xf0\x9f\x98", "ok\xff", "\xc3"}
	for _, text := range texts {
		for i := 0; i <= len(text); i++ {
			c := &utf8Check{}
			c.Write([]byte(text[:i]))
			c.Write([]byte(text[i:]))
			if got, want := c.valid(), utf8.ValidString(text); got != want {
				t.Errorf("%q split at %d: valid %v, want %v", text, i, got, want)
			}
		}
	}
}

// TestSearchedText: Grep searches a file with a byte order mark as ripgrep does, as
// its text, whichever UTF-16 byte order; without a mark the bytes are searched.
func TestSearchedText(t *testing.T) {
	le := append([]byte{0xFF, 0xFE}, 'h', 0, 'i', 0, '\n', 0, 0x3D, 0xD8, 0x00, 0xDE)
	be := append([]byte{0xFE, 0xFF}, 0, 'h', 0, 'i', 0, '\n', 0xD8, 0x3D, 0xDE, 0x00)
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"utf16le", le, "hi\n😀"},
		{"utf16be", be, "hi\n😀"},
		{"utf8 with a mark", []byte("\xEF\xBB\xBFhi\n"), "hi\n"},
		{"utf16le without a mark", []byte("h\x00i\x00"), "h\x00i\x00"},
		{"odd final byte", []byte{0xFE, 0xFF, 0, 'h', 'x'}, "h\uFFFD"},
	} {
		if got := string(searchedText(tc.raw)); got != tc.want {
			t.Errorf("%s: searched %q, want %q", tc.name, got, tc.want)
		}
	}
}
