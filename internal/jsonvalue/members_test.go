package jsonvalue

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

var membersSeeds = []string{
	`{}`,
	` { } `,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"a \"}{\\"}}}`,
	"{\n\t\"a\" : [1, {\"b\": [\"]\"]}, null] ,\r\n \"c\":true}",
	`{"a":1,"a":2}`,
	`{"a":-1.5e+3,"b":"x","c":false,"d":null}`,
	`{"\u0061":1}`,
	`{"a\"b":1}`,
	"{\"k\xff\":1}",
	"{\"k\":\"\xff\"}",
	`{"a":{"b":{"c":[[[]]]}}, "z":"}"}`,
	`[1,2]`,
	`"x"`,
	`{"a":1,}`,
	`{"a":1} x`,
	`{"a"`,
	``,
	`  `,
	`{"é":"ü","日本":[]}`,
}

// Members gives the map encoding/json gives, wherever it takes the input, and takes
// the plain objects.
func FuzzMembers(f *testing.F) {
	for _, s := range membersSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := Members(data)
		var want map[string]json.RawMessage
		err := json.Unmarshal(data, &want)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("%q: Members took it, encoding/json says %v", data, err)
		}
		if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Fatalf("%q:\nMembers      %q\nencoding/json %q", data, got, want)
		}
	})
}

func TestMembersTakesPlainObjects(t *testing.T) {
	for _, s := range []string{membersSeeds[0], membersSeeds[2], membersSeeds[3], membersSeeds[4], membersSeeds[10], membersSeeds[18]} {
		if _, ok := Members([]byte(s)); !ok {
			t.Errorf("%q: left to encoding/json", s)
		}
	}
	for _, s := range []string{`{"\u0061":1}`, "{\"k\xff\":1}", `[1,2]`, `{"a":1,}`, ``} {
		if _, ok := Members([]byte(s)); ok {
			t.Errorf("%q: taken, but encoding/json must decode it", s)
		}
	}
}

// TestKeys: an object's keys in written order, unescaped, a repeat at its first place.
func TestKeys(t *testing.T) {
	for data, want := range map[string][]string{
		`{"z":1,"a":{"y":2},"m":[1,{"q":3}],"z":4}`: {"z", "a", "m"},
		`{"\u0062":1, "a" : 2}`:                     {"b", "a"},
		`{}`:                                        nil,
		`[1]`:                                       nil,
		`{"a":`:                                     nil,
	} {
		if got := Keys([]byte(data)); !slices.Equal(got, want) {
			t.Errorf("Keys(%s) = %q, want %q", data, got, want)
		}
	}
}
