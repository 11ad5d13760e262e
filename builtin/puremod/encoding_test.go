package puremod

import (
	"regexp"
	"testing"
	"time"
)

func TestEncodingFunctions(t *testing.T) {
	tests := []struct{ body, want string }{
		{`return base64.encode("")`, `[""]`},
		{`return base64.encode("hi?>")`, `["aGk/Pg=="]`},
		{`return base64.encode("hi?>", {url = true})`, `["aGk_Pg=="]`},
		{`return base64.encode("hi?>", {pad = false})`, `["aGk/Pg"]`},
		{`return base64.encode("hi?>", {url = true, pad = false})`, `["aGk_Pg"]`},
		{`return base64.decode("aGk/Pg==")`, `["hi?\u003e"]`},
		{`return base64.decode("aGk/Pg")`, `["hi?\u003e"]`},
		{`return base64.decode("aGk/\nPg==\r\n")`, `["hi?\u003e"]`},
		{`return base64.decode("aGk_Pg", {url = true})`, `["hi?\u003e"]`},
		{`return base64.decode("aGk_Pg")`, `[null,"base64.decode: not base64 (standard alphabet): illegal base64 data at input byte 3","badencoding"]`},
		{`return base64.decode("aGk/Pg", {url = true})`, `[null,"base64.decode: not base64 (URL alphabet): illegal base64 data at input byte 3","badencoding"]`},
		{`return base64.decode("a")`, `[null,"base64.decode: not base64 (standard alphabet): illegal base64 data at input byte 0","badencoding"]`},
		{`local b = "\0\1\255" return base64.decode(base64.encode(b)) == b`, `[true]`},
		{`return hex.encode("\0\1\171\255")`, `["0001abff"]`},
		{`return hex.decode("0001ABff") == "\0\1\171\255"`, `[true]`},
		{`return hex.decode("")`, `[""]`},
		{`return hex.decode("abc")`, `[null,"hex.decode: odd length hex string","badencoding"]`},
		{`return hex.decode("zz")`, `[null,"hex.decode: invalid byte: U+007A 'z'","badencoding"]`},
		// crypto: the digests of "abc" from the standards' own examples.
		{`return crypto.md5("abc")`, `["900150983cd24fb0d6963f7d28e17f72"]`},
		{`return crypto.sha1("abc")`, `["a9993e364706816aba3e25717850c26c9cd0d89d"]`},
		{`return crypto.sha256("abc")`, `["ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"]`},
		{`return crypto.sha512("abc")`, `["ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"]`},
		{`return hex.encode(crypto.sha256("abc", {raw = true})) == crypto.sha256("abc")`, `[true]`},
		// RFC 4231, test case 2.
		{`return crypto.hmac("sha256", "Jefe", "what do ya want for nothing?")`, `["5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"]`},
		{`return #crypto.hmac("sha1", "k", "m", {raw = true})`, `[20]`},
		{`return crypto.hmac("md5", "", "")`, `["74e6f7298a9c2d168935f58c001bad88"]`},
		{`return crypto.equal("abc", "abc"), crypto.equal("abc", "abd"), crypto.equal("abc", "ab")`, `[true,false,false]`},
	}
	for _, tt := range tests {
		wantJSON(t, tt.body, tt.want)
	}
}

func TestEncodingArgumentErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{`base64.encode()`, "bad argument #1 to 'base64.encode' (string expected, got nil)"},
		{`base64.encode("x", {URL = true})`, "bad argument #2 to 'base64.encode' (unknown option 'URL', did you mean 'url'? options: pad, url)"},
		{`base64.encode("x", {pad = "no"})`, "bad argument #2 to 'base64.encode' (option 'pad': boolean expected, got string)"},
		{`base64.decode("x", {pad = false})`, "bad argument #2 to 'base64.decode' (unknown option 'pad'; options: url)"},
		{`hex.encode(12)`, "bad argument #1 to 'hex.encode' (string expected, got number)"},
		{`hex.decode()`, "bad argument #1 to 'hex.decode' (string expected, got nil)"},
		{`crypto.sha256()`, "bad argument #1 to 'crypto.sha256' (string expected, got nil)"},
		{`crypto.md5("x", {hex = true})`, "bad argument #2 to 'crypto.md5' (unknown option 'hex'; options: raw)"},
		{`crypto.hmac("sha265", "k", "m")`, "bad argument #1 to 'crypto.hmac' (unknown hash 'sha265', did you mean 'sha256'? hashes: md5, sha1, sha256, sha512)"},
		{`crypto.hmac("sha256", "k")`, "bad argument #3 to 'crypto.hmac' (string expected, got nil)"},
		{`crypto.equal("a")`, "bad argument #2 to 'crypto.equal' (string expected, got nil)"},
	}
	for _, tt := range tests {
		raises(t, tt.body, tt.want)
	}
}

var (
	uuid4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	uuid7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

func TestUUIDs(t *testing.T) {
	before := time.Now().UnixMilli()
	out := eval(t, `local v4, v7 = {}, {}
for i = 1, 5000 do v4[i], v7[i] = uuid.v4(), uuid.v7() end
return v4, v7`)
	after := time.Now().UnixMilli()
	seen := map[string]bool{}
	for i, v := range out[0].([]any) {
		s := v.(string)
		if !uuid4.MatchString(s) || seen[s] {
			t.Fatalf("v4 #%d %q: not a fresh version 4 UUID", i+1, s)
		}
		seen[s] = true
	}
	prev := ""
	for i, v := range out[1].([]any) {
		s := v.(string)
		if !uuid7.MatchString(s) || s <= prev {
			t.Fatalf("v7 #%d %q after %q: not a version 7 UUID in order", i+1, s, prev)
		}
		prev = s
	}
	// The first 48 bits are the time in ms (the counter may move the last ones
	// on by a few ms when many are made within one).
	var first int64
	for _, c := range out[1].([]any)[0].(string)[:13] {
		if c != '-' {
			first = first*16 + int64(hexDigit(c))
		}
	}
	if first < before || first > after+5 {
		t.Errorf("the first v7 UUID says %d ms, not between %d and %d", first, before, after)
	}
}

func hexDigit(c rune) int {
	if c >= 'a' {
		return int(c-'a') + 10
	}
	return int(c - '0')
}
