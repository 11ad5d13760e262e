package jsonvalue

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"unsafe"
)

var fastCases = []string{
	`{}`, `[]`, `{"text":"hello"}`, ` { "a" : [1, 2.5, -0, 1e3, -1.5E-2, true, false, null] } `,
	`"plain"`, `"esc \" \\ \/ \b \f \n \r \t \u00e9 \u20ac \ud83d\ude00"`, `"naïve ☃"`,
	`9007199254740992`, `-9007199254740992`, `9007199254740993`, `1e400`, `01`, `1.`, `.5`, `-`, `+1`,
	`{"a":1,"a":2}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `tru`, `nul`, `"\ud800"`, `"\ud800x"`,
	`"\udc00\ud800"`, "\"\xff\"", "\"ctl\x01\"", `"\x"`, `"\u12"`, `{"k":"v"} x`, ``, `   `, `[[[[]]]]`,
	`{"nested":{"deep":{"list":[{"x":"y"}]}}}`, `[[[{}]],[],1]`, `123`, `-0.0`, `1E+2`, `"\u0000"`,
}

// TestDecodeFastAgrees: whatever the fast path accepts, the general path decodes to
// the same value, of the same Depth; and Decode agrees with the general path
// everywhere.
func TestDecodeFastAgrees(t *testing.T) {
	for _, c := range fastCases {
		checkAgreement(t, []byte(c))
	}
}

// sameValue is reflect.DeepEqual that also tells -0 from 0.
func sameValue(a, b any) bool {
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && math.Float64bits(fa) == math.Float64bits(fb)
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func checkAgreement(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := decodeGeneral(data)
	if fast, depth, ok := decodeFast(data, nil); ok && (wantErr != nil || !sameValue(fast, want) || depth != Depth(want)) {
		t.Errorf("%q: fast path gave %#v of depth %d, general %#v (%v) of depth %d", data, fast, depth, want, wantErr, Depth(want))
	}
	got, err := Decode(data)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) || !sameValue(got, want) {
		t.Errorf("%q: Decode = %#v, %v; general %#v, %v", data, got, err, want, wantErr)
	}
}

func FuzzDecodeFast(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAgreement(t, data) })
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a & b>", "quote \" back \\ slash", "\b\f\n\r\t\x00\x01\x1f\x7f", "é€😀", "\u2028\u2029", "\xff\xfe bad", "a\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, Encode gives %s", s, got, want)
		}
	})
}

// DecodeKeys decodes as Decode does, and an object key it was given is its string,
// at any depth; a key with escapes, or not given, is decoded as usual.
func TestDecodeKeys(t *testing.T) {
	text := "text"
	keys := map[string]string{text: text, "a": "a"}
	for _, c := range fastCases {
		want, wantErr := Decode([]byte(c))
		got, depth, err := DecodeKeys([]byte(c), keys)
		if (err == nil) != (wantErr == nil) || !sameValue(got, want) || depth != Depth(want) {
			t.Errorf("DecodeKeys(%s) = %#v of depth %d, %v; Decode gives %#v of depth %d, %v", c, got, depth, err, want, Depth(want), wantErr)
		}
	}
	v, _, err := DecodeKeys([]byte(`{"text":"x","inner":{"text":1,"te\u0078t2":2}}`), keys)
	if err != nil {
		t.Fatal(err)
	}
	outer := v.(map[string]any)
	inner := outer["inner"].(map[string]any)
	for _, m := range []map[string]any{outer, inner} {
		for k := range m {
			if k == text && unsafe.StringData(k) != unsafe.StringData(text) {
				t.Errorf("key %q is a copy", k)
			}
		}
	}
	if _, ok := inner["text2"]; !ok {
		t.Errorf("the escaped key is lost: %v", inner)
	}
}
