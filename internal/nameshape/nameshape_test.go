package nameshape

import (
	"regexp"
	"strings"
	"testing"
)

// rules are luatool's rules and a few more of the same shape.
var rules = []string{
	`^[A-Za-z][A-Za-z0-9_.-]{0,127}$`,
	`^[A-Za-z0-9_-]{1,64}$`,
	`^[A-Za-z_][A-Za-z0-9_]{0,127}$`,
	`^[A-Za-z0-9._@-]{1,64}$`,
	`^[-a][b-d]{2,3}$`,
	`^[x]{0,0}$`,
}

// TestShapeAgreesWithRegexp checks each rule against regexp's reading of it, on every
// byte in every position of short names and on names around the length bounds.
func TestShapeAgreesWithRegexp(t *testing.T) {
	var inputs []string
	for c := 0; c < 256; c++ {
		b := string([]byte{byte(c)})
		inputs = append(inputs, b, "a"+b, b+"a", "_"+b+"9", "Z-"+b, "bc"+b, "ab"+b+"c")
	}
	inputs = append(inputs, "", "é", "ab\n", "\nab", "-bb", "abbb", "abbbb")
	for _, n := range []int{63, 64, 65, 127, 128, 129} {
		inputs = append(inputs, "A"+strings.Repeat("b", n-1), "A"+strings.Repeat("b", n-2)+".")
	}
	for _, expr := range rules {
		shape, re := MustParse(expr), regexp.MustCompile(expr)
		if shape.String() != expr {
			t.Errorf("String() = %q, want %q", shape.String(), expr)
		}
		for _, in := range inputs {
			if got, want := shape.MatchString(in), re.MatchString(in); got != want {
				t.Errorf("%s: MatchString(%q) = %v, regexp says %v", expr, in, got, want)
			}
		}
	}
}

func TestParseRefusesOtherShapes(t *testing.T) {
	for _, expr := range []string{
		`[a]{1,2}$`, `^[a]{1,2}`, `^[a]{1}$`, `^[a]{2,1}$`, `^[a]+$`, `^[]{1,2}$`,
		`^[\d]{1,2}$`, `^[^a]{1,2}$`, `^[a][b][c]{1,2}$`, `^[z-a]{1,2}$`, `^[a{1,2}$`, `^[é]{1,2}$`,
	} {
		if _, err := parse(expr); err == nil {
			t.Errorf("parse(%q) succeeded", expr)
		}
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse of a bad rule did not panic")
		}
	}()
	MustParse(`^a+$`)
}

// BenchmarkMatch is a tool name's check; BenchmarkRegexp is the same by regexp.
func BenchmarkMatch(b *testing.B) {
	s := MustParse(rules[0])
	for b.Loop() {
		if !s.MatchString("mcp__server__read_file") {
			b.Fatal("no match")
		}
	}
}

func BenchmarkRegexp(b *testing.B) {
	re := regexp.MustCompile(rules[0])
	for b.Loop() {
		if !re.MatchString("mcp__server__read_file") {
			b.Fatal("no match")
		}
	}
}

func BenchmarkCompileRegexp(b *testing.B) {
	for b.Loop() {
		regexp.MustCompile(rules[0])
	}
}
