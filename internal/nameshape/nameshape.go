// Package nameshape matches names against rules of one shape, ^[first][rest]{m,n}$
// or ^[rest]{m,n}$ over ASCII, without the regexp package. regexp.MustCompile of such
// a rule builds a state for every count of the repetition: luatool's name rules cost
// 1.3 ms of every process start as package variables, more than all of its other
// package init, and a hand match is faster too.
package nameshape

import (
	"fmt"
	"strconv"
	"strings"
)

// A Shape is a compiled rule, made by MustParse. It is small, so that a value
// method's copy costs nothing, and String makes it print as its expression.
type Shape struct {
	expr           string
	first, rest    class
	hasFirst       bool
	minLen, maxLen int // bounds of the whole name, in bytes
}

// class is a set of bytes, as bits.
type class [4]uint64

func (c *class) add(b byte)      { c[b>>6] |= 1 << (b & 63) }
func (c *class) has(b byte) bool { return c[b>>6]&(1<<(b&63)) != 0 }

// MustParse compiles expr, which must have the form ^[C]{m,n}$ or ^[C1][C2]{m,n}$
// where each C is a bracket class of ASCII characters and ranges (a '-' first or last
// is itself), and panics otherwise: rules are constants of the program.
func MustParse(expr string) Shape {
	s, err := parse(expr)
	if err != nil {
		panic(fmt.Sprintf("nameshape: %q: %v", expr, err))
	}
	return s
}

func parse(expr string) (Shape, error) {
	s := Shape{expr: expr}
	body, ok := strings.CutPrefix(expr, "^")
	if !ok {
		return s, fmt.Errorf("does not start with ^")
	}
	body, ok = strings.CutSuffix(body, "$")
	if !ok {
		return s, fmt.Errorf("does not end with $")
	}
	var classes []class
	for strings.HasPrefix(body, "[") {
		end := strings.IndexByte(body[1:], ']')
		if end < 0 {
			return s, fmt.Errorf("a [ without ]")
		}
		c, err := parseClass(body[1 : 1+end])
		if err != nil {
			return s, err
		}
		classes = append(classes, c)
		body = body[2+end:]
	}
	lo, hi, err := parseCount(body)
	if err != nil {
		return s, err
	}
	switch len(classes) {
	case 1:
		s.rest, s.minLen, s.maxLen = classes[0], lo, hi
	case 2:
		s.first, s.rest, s.hasFirst, s.minLen, s.maxLen = classes[0], classes[1], true, lo+1, hi+1
	default:
		return s, fmt.Errorf("%d bracket classes, not one or two", len(classes))
	}
	return s, nil
}

// parseClass reads the inside of a bracket class: characters and ranges a-z.
func parseClass(spec string) (class, error) {
	var c class
	if spec == "" {
		return c, fmt.Errorf("an empty class")
	}
	for i := 0; i < len(spec); i++ {
		lo := spec[i]
		if lo == '\\' || lo == '^' || lo == '[' || lo >= 0x80 {
			return c, fmt.Errorf("%q in a class: only plain ASCII characters and ranges", lo)
		}
		hi := lo
		if i+2 < len(spec) && spec[i+1] == '-' {
			hi = spec[i+2]
			if hi < lo || hi >= 0x80 {
				return c, fmt.Errorf("the range %c-%c", lo, hi)
			}
			i += 2
		}
		for b := int(lo); b <= int(hi); b++ {
			c.add(byte(b))
		}
	}
	return c, nil
}

// parseCount reads {m,n}.
func parseCount(s string) (lo, hi int, err error) {
	inner, ok := strings.CutPrefix(s, "{")
	if ok {
		inner, ok = strings.CutSuffix(inner, "}")
	}
	m, n, comma := strings.Cut(inner, ",")
	if !ok || !comma {
		return 0, 0, fmt.Errorf("%q is not a count {m,n}", s)
	}
	if lo, err = strconv.Atoi(m); err == nil {
		hi, err = strconv.Atoi(n)
	}
	if err != nil || lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("%q is not a count {m,n} with 0 <= m <= n", s)
	}
	return lo, hi, nil
}

// MatchString reports whether name follows the rule.
func (s Shape) MatchString(name string) bool {
	if len(name) < s.minLen || len(name) > s.maxLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := &s.rest
		if i == 0 && s.hasFirst {
			c = &s.first
		}
		if !c.has(name[i]) {
			return false
		}
	}
	return true
}

// String returns the rule's expression, for messages.
func (s Shape) String() string { return s.expr }

// toolName is the rule for tool names, which ToolName gives.
var toolName = MustParse(`^[A-Za-z][A-Za-z0-9_.-]{0,127}$`)

// ToolName returns the rule for tool names: MCP's (letters, digits, _, - and ., at
// most 128), starting with a letter. The engine holds tools to it, and so do the
// permission rules and the env values that name tools. The Anthropic and OpenAI
// APIs are narrower (no dots, at most 64: engine.APIName).
func ToolName() Shape { return toolName }
