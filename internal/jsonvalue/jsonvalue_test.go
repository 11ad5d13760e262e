package jsonvalue

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeValueModel(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`null`, nil},
		{`true`, true},
		{`"s"`, "s"},
		{`12`, float64(12)},
		{`-0.5`, -0.5},
		{`1e3`, float64(1000)},
		{`[]`, []any{}},
		{`{}`, map[string]any{}},
		{`[1,"a",null,{"b":[false]}]`, []any{float64(1), "a", nil, map[string]any{"b": []any{false}}}},
		{`{"a":{"b":{"c":3}}}`, map[string]any{"a": map[string]any{"b": map[string]any{"c": float64(3)}}}},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.in))
		if err != nil {
			t.Errorf("Decode(%s): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Decode(%s) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestDecodeEmptyArrayAndObjectStayDistinct(t *testing.T) {
	v, err := Decode([]byte(`{"a":[],"o":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if _, ok := m["a"].([]any); !ok {
		t.Errorf("[] decoded as %T, want []any", m["a"])
	}
	if _, ok := m["o"].(map[string]any); !ok {
		t.Errorf("{} decoded as %T, want map[string]any", m["o"])
	}
	out, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"a":[],"o":{}}` {
		t.Errorf("round trip = %s", out)
	}
}

func TestDecodeIntegersExactUpTo2Pow53(t *testing.T) {
	for _, in := range []string{"9007199254740992", "-9007199254740992", "9007199254740991"} {
		v, err := Decode([]byte(in))
		if err != nil {
			t.Errorf("Decode(%s): %v", in, err)
			continue
		}
		out, _ := Encode(v)
		if string(out) != in {
			t.Errorf("Decode+Encode(%s) = %s, want it unchanged", in, out)
		}
	}
}

func TestDecodeRejectsIntegersBeyond2Pow53WithPath(t *testing.T) {
	tests := []struct {
		in, path string
	}{
		{`9007199254740993`, "$"},
		{`-9007199254740993`, "$"},
		{`{"a":[1,9007199254740993]}`, "$.a[1]"},
		{`{"weird key":{"n":123456789012345678901234567890}}`, `$["weird key"].n`},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in))
		if err == nil {
			t.Errorf("Decode(%s) succeeded; an integer past 2^53 must be rejected", tt.in)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.path+": ") || !strings.Contains(err.Error(), "2^53") {
			t.Errorf("Decode(%s) error = %q, want it to start with %q and mention 2^53", tt.in, err, tt.path)
		}
	}
}

func TestDecodeLargeNonIntegerLiteralsAreNotIntegers(t *testing.T) {
	// A literal with a fraction or an exponent is a float by the author's choice and
	// is kept as the nearest float64.
	for _, in := range []string{"1e300", "9007199254740993.0", "1.5e20"} {
		if _, err := Decode([]byte(in)); err != nil {
			t.Errorf("Decode(%s): %v", in, err)
		}
	}
}

func TestDecodeOutOfRangeNumber(t *testing.T) {
	_, err := Decode([]byte(`{"x":1e400}`))
	if err == nil || !strings.HasPrefix(err.Error(), "$.x: ") {
		t.Fatalf("Decode(1e400) error = %v, want an out-of-range error at $.x", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1}{"b":2}`, `[1] 2`, `{'a':1}`, `NaN`} {
		if v, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", in, v)
		}
	}
}

func TestEncodeSortsKeysAndIsCompact(t *testing.T) {
	v := map[string]any{
		"b": 1.0,
		"a": map[string]any{"z": true, "y": nil, "x": []any{map[string]any{"d": 1.0, "c": 2.0}}},
		"c": "<&>",
	}
	got, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"x":[{"c":2,"d":1}],"y":null,"z":true},"b":1,"c":"<&>"}`
	if string(got) != want {
		t.Errorf("Encode = %s\nwant      %s", got, want)
	}
}

func TestEncodeRejectsNaNAndInfinity(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), math.Inf(-1), map[string]any{"a": []any{math.NaN()}}} {
		if b, err := Encode(v); err == nil {
			t.Errorf("Encode(%v) = %s, want an error", v, b)
		}
	}
}

func TestNormalizeConvertsNumbersInPlace(t *testing.T) {
	v := map[string]any{"a": []any{json.Number("1"), json.Number("2.5")}, "b": json.Number("-3")}
	got, err := Normalize(v, "$")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{1.0, 2.5}, "b": -3.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize = %#v, want %#v", got, want)
	}
	if _, err := Normalize([]any{json.Number("1"), json.Number("18014398509481984")}, "$.list"); err == nil || !strings.HasPrefix(err.Error(), "$.list[1]: ") {
		t.Errorf("Normalize error = %v, want one at $.list[1]", err)
	}
}

func TestPaths(t *testing.T) {
	tests := []struct{ got, want string }{
		{JoinKey("$", "a"), "$.a"},
		{JoinKey("$", "a_b-c9"), "$.a_b-c9"},
		{JoinKey("$", "a b"), `$["a b"]`},
		{JoinKey("$", "1x"), `$["1x"]`},
		{JoinKey("$", ""), `$[""]`},
		{JoinKey("$", `q"`), `$["q\""]`},
		{JoinIndex("$.a", 0), "$.a[0]"},
		{JoinIndex(JoinKey("$", "todos"), 3), "$.todos[3]"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
}

func TestKind(t *testing.T) {
	for raw, want := range map[string]string{
		"": "nothing", `{"a":1}`: "an object", "[1]": "an array", `"x"`: "a string",
		"true": "a boolean", "false": "a boolean", "null": "null", "-1.5": "a number", "0": "a number",
	} {
		if got := Kind([]byte(raw)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", raw, got, want)
		}
	}
}
