package jsonvalue

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeFast parses the common case of a JSON document straight into the value
// model, in one pass and without the reflection of encoding/json. It gives up (ok
// false) on anything unusual: a syntax error, invalid UTF-8, a lone surrogate, a
// number out of range or an integer beyond 2^53, very deep nesting. Decode then
// parses the document again with encoding/json, which words the error or applies its
// own replacements, so both paths agree on every document.
//
// depth is Depth(v), found on the way.
func decodeFast(data []byte, keys map[string]string) (v any, depth int, ok bool) {
	p := fastParser{data: data, keys: keys}
	v, ok = p.value(0)
	if !ok {
		return nil, 0, false
	}
	p.space()
	return v, p.deepest, p.i == len(p.data)
}

type fastParser struct {
	data []byte
	i    int
	keys map[string]string // the object keys that need no copy (DecodeKeys)
	// deepest is the Depth of what was parsed: the most containers open at once.
	deepest int
}

// maxFastDepth bounds the recursion; deeper documents take the general path.
const maxFastDepth = 512

func (p *fastParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) value(depth int) (any, bool) {
	if depth > maxFastDepth {
		return nil, false
	}
	p.space()
	if p.i >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.i]; {
	case c == '{':
		p.deepest = max(p.deepest, depth+1)
		return p.object(depth)
	case c == '[':
		p.deepest = max(p.deepest, depth+1)
		return p.array(depth)
	case c == '"':
		s, ok := p.string()
		return s, ok
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	default:
		return p.number()
	}
}

func (p *fastParser) literal(word string) bool {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

func (p *fastParser) object(depth int) (any, bool) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, false
		}
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[key] = v
		if closed, ok := p.separator('}'); !ok || closed {
			return m, ok
		}
	}
}

// separator reads what follows a member or element: a comma (more to come) or the
// closing bracket (closed).
func (p *fastParser) separator(closing byte) (closed, ok bool) {
	p.space()
	if p.i >= len(p.data) {
		return false, false
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		return false, true
	case closing:
		p.i++
		return true, true
	}
	return false, false
}

func (p *fastParser) array(depth int) (any, bool) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if closed, ok := p.separator(']'); !ok || closed {
			return a, ok
		}
	}
}

// string reads a string at p.i (on its opening quote).
func (p *fastParser) string() (string, bool) {
	raw, plain, ok := p.stringBody()
	switch {
	case !ok:
		return "", false
	case plain:
		return string(raw), true
	}
	return unescape(raw)
}

// key reads an object key at p.i: one of p.keys, when it is one, or a string.
func (p *fastParser) key() (string, bool) {
	raw, plain, ok := p.stringBody()
	switch {
	case !ok:
		return "", false
	case !plain:
		return unescape(raw)
	}
	if k, known := p.keys[string(raw)]; known {
		return k, true
	}
	return string(raw), true
}

// stringBody reads a string at p.i (on its opening quote) and returns its body;
// plain means it has no escapes (the bytes are the string, valid UTF-8).
func (p *fastParser) stringBody() (raw []byte, plain, ok bool) {
	p.i++ // "
	start := p.i
	plain = true
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			raw := p.data[start:p.i]
			p.i++
			if plain && !utf8.Valid(raw) {
				return nil, false, false
			}
			return raw, plain, true
		case c == '\\':
			plain = false
			p.i += 2
		case c < 0x20:
			return nil, false, false
		default:
			p.i++
		}
	}
	return nil, false, false
}

// unescape decodes the body of a string with escapes.
func unescape(raw []byte) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", false
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// A pair must follow; a lone surrogate is left to encoding/json.
				if i+2 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return "", false
				}
				r2, ok := hex4(raw[i+3:])
				if !ok {
					return "", false
				}
				dec := utf16.DecodeRune(r, r2)
				if dec == utf8.RuneError {
					return "", false
				}
				i += 6
				r = dec
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number reads a number in JSON's grammar into a float64, with the value model's
// rule for integer literals beyond 2^53 (left to the general path, which reports it).
func (p *fastParser) number() (any, bool) {
	start := p.i
	d := p.data
	if p.i < len(d) && d[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(d) && d[p.i] == '0':
		p.i++
	case p.i < len(d) && '1' <= d[p.i] && d[p.i] <= '9':
		for p.i < len(d) && '0' <= d[p.i] && d[p.i] <= '9' {
			p.i++
		}
	default:
		return nil, false
	}
	integer := true
	if p.i < len(d) && d[p.i] == '.' {
		integer = false
		p.i++
		if !p.digits() {
			return nil, false
		}
	}
	if p.i < len(d) && (d[p.i] == 'e' || d[p.i] == 'E') {
		integer = false
		p.i++
		if p.i < len(d) && (d[p.i] == '+' || d[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, false
		}
	}
	lit := string(d[start:p.i])
	if integer {
		// Compare the literal, not the rounded float: 2^53+1 rounds to 2^53.
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil || n > MaxSafeInteger || n < -MaxSafeInteger {
			return nil, false
		}
		if n == 0 && lit[0] == '-' {
			return math.Copysign(0, -1), true // "-0" is negative zero, as ParseFloat says
		}
		return float64(n), true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	return f, true
}

func (p *fastParser) digits() bool {
	start := p.i
	for p.i < len(p.data) && '0' <= p.data[p.i] && p.data[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, exactly as Encode writes it (no escaping
// of <, > and &; invalid UTF-8 as U+FFFD; U+2028 and U+2029 escaped).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
