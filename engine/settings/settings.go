// Package settings reads Claude Code-shaped settings files: the permission rules, the
// mode and the additional directories a person or a project sets for luatool, and
// the values it hands tools ("env"). Each
// file is one layer with a name for messages (Layer); Merge stacks layers in order.
// Where the files are, and what the command line adds, is for the host to say: the
// package reads no environment variable and knows no flag.
//
// A settings file is shaped like Claude Code's:
//
//	{"permissions": {"allow": ["Rule", ...], "ask": [...], "deny": [...],
//	                 "defaultMode": "default", "additionalDirectories": ["dir", ...]}}
//
// and may add the host's network policy for every tool (package netpolicy):
//
//	{"network": {"deny": ["tracker.example", "10.0.0.0/8"], "allow": ["localhost"]}}
//
// deny refuses hosts whatever a tool declares; allow names the hosts (or addresses)
// that may be reached although they are loopback, private or link-local addresses.
//
// "env" holds the values tools read with env.get, in Claude Code's shape, a name
// and a string for every tool, or a name and an object for a value that is secret or
// given to some tools only (see the env method):
//
//	{"env": {"UNITS": "metric",
//	         "WEATHER_API_KEY": {"value": "...", "secret": true, "tools": ["Weather"]}}}
//
// "hooks" holds Claude Code's command hooks, and "disableAllHooks" turns them off (read
// into a hooks.Settings: see hooks.go); a hook entry luatool cannot run is a warning
// naming it, the rest is used.
//
// Inside "permissions", "network" and the objects of "env" every key must be known:
// a misspelt key would drop rules the user believes are in force, so it is an error
// with a hint. At the top level, keys other than those luatool reads (topLevelKeys)
// and "$schema" are reported as warnings and otherwise ignored, so that a
// Claude-style file carrying "model" or "statusLine" still loads; a key that looks like a
// misspelling of one luatool reads is an error. Every rule is checked with
// rules.Check as it is read, every host pattern with netpolicy.ParsePattern.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/jsonvalue"
	"github.com/luatool/luatool/internal/spell"
)

// A Layer is one source of settings, as messages and rule origins name it.
type Layer struct {
	// Name names the layer in messages: "user", "project", "--settings".
	Name string
	// Root is the absolute directory that "/x" path patterns of the layer's rules are
	// relative to, and that relative additionalDirectories are resolved against.
	Root string
	// Home is the user's home directory, for "~" and "~/x" in additionalDirectories;
	// empty makes such an entry an error.
	Home string
}

// Settings are what one settings file says, or the merge of several.
type Settings struct {
	// Permissions are the permission rules, mode and additional directories.
	Permissions rules.Settings
	// Network is the host's network policy.
	Network Network
	// Env are the values handed to tools, in the order given (see env.New).
	Env []env.Var
	// Hooks are the command hooks and whether hooks are turned off (see hooks.Settings).
	Hooks hooks.Settings
}

// Network is the "network" object: host patterns, with where each came from.
type Network struct {
	Deny, Allow []Entry
}

// An Entry is one host pattern of a network list and its origin.
type Entry struct {
	// Pattern is the host pattern as written.
	Pattern string
	// Source names the layer ("user", "project", "--allow-net"); File is the settings
	// file, empty for a flag.
	Source, File string
}

// Policy returns the network policy of the lists.
func (n Network) Policy() (netpolicy.Policy, error) {
	texts := func(es []Entry) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.Pattern
		}
		return out
	}
	return netpolicy.NewPolicy(texts(n.Deny), texts(n.Allow))
}

// An Error is one problem with a settings file. ReadFile reports every problem it
// finds; several are joined with errors.Join, and errors.As finds the first.
type Error struct {
	// Pos locates the problem: the file, and the line and column (1-based, the column
	// counting characters) unless it concerns the file as a whole (it cannot be read,
	// it is empty).
	srcpos.Pos
	// Path is the JSON path of the offending value, such as "permissions.allow[2]";
	// empty for syntax errors and problems of the file as a whole.
	Path string
	// Message says what is wrong.
	Message string
	// Err is the underlying error (reading the file, the rule parser), or nil.
	Err error
}

// Error renders "file:line:column: path: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.Prefix())
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Unwrap returns Err, so that errors.Is(err, fs.ErrNotExist) tells a missing file.
func (e *Error) Unwrap() error { return e.Err }

// ReadFile reads one settings file as a layer. The warnings are the ignored
// top-level keys, as "file:line:column: ..." lines. The error reports every problem
// found (see Error); a file that cannot be read is an error too, one for which
// errors.Is(err, fs.ErrNotExist) tells a missing file. On error the settings are the
// zero value: a file is used whole or not at all.
func ReadFile(path string, layer Layer) (Settings, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = "cannot " + pe.Op + ": " + pe.Err.Error()
		}
		return Settings{}, nil, &Error{Pos: srcpos.Pos{File: path}, Message: msg, Err: err}
	}
	return Parse(path, data, layer)
}

// Parse reads the content of one settings file, data, as ReadFile reads the file
// named file (which Parse does not open: it names the file in messages and rule
// origins). A host that decides whether to use a file by its content (a hash, as
// workspace trust does) reads it once and parses those bytes, so that what it checked
// is what it uses.
func Parse(file string, data []byte, layer Layer) (Settings, []string, error) {
	r := reader{file: file, layer: layer, data: bytes.TrimPrefix(data, []byte("\ufeff"))}
	r.read()
	if len(r.errs) > 0 {
		return Settings{}, nil, errors.Join(r.errs...)
	}
	return Settings{Permissions: r.out, Network: r.network, Env: r.envVars, Hooks: r.hooks}, r.warnings, nil
}

// Merge merges layers given in order (later layers over earlier ones): the rule lists
// are concatenated in that order, the mode is that of the last layer that sets one,
// the additional directories are those of every layer, each once, in order of
// first appearance, a later env value of a name replaces an earlier one, the hooks
// of every layer are kept, in order, and "disableAllHooks": true in any layer turns
// them all off. The result shares no slice with the layers.
func Merge(layers ...Settings) Settings {
	var out rules.Settings
	var network Network
	var hooks hooks.Settings
	seen := map[string]bool{}
	for _, layer := range layers {
		hooks.Commands = append(hooks.Commands, layer.Hooks.Commands...)
		hooks.Disabled = hooks.Disabled || layer.Hooks.Disabled
		network.Deny = append(network.Deny, layer.Network.Deny...)
		network.Allow = append(network.Allow, layer.Network.Allow...)
		l := layer.Permissions
		out.Allow = append(out.Allow, l.Allow...)
		out.Ask = append(out.Ask, l.Ask...)
		out.Deny = append(out.Deny, l.Deny...)
		if l.Mode != "" {
			out.Mode, out.ModeSource, out.ModeFile = l.Mode, l.ModeSource, l.ModeFile
		}
		for _, d := range l.AdditionalDirectories {
			if !seen[d] {
				seen[d] = true
				out.AdditionalDirectories = append(out.AdditionalDirectories, d)
			}
		}
	}
	return Settings{Permissions: out, Network: network, Env: mergeEnv(layers), Hooks: hooks}
}

// topLevelKeys are the keys of a settings file luatool reads.
func topLevelKeys() []string {
	return []string{"permissions", "network", "env", "hooks", "disableAllHooks"}
}

// permissionKeys are the keys a "permissions" object may hold.
func permissionKeys() []string {
	return []string{"allow", "ask", "deny", "defaultMode", "additionalDirectories"}
}

// reader reads one settings file: first a syntax check of the whole
// document, then a walk over its tokens that knows where each value starts, so that
// every problem has a line, a column and a JSON path.
type reader struct {
	file  string
	layer Layer
	data  []byte

	dec      *json.Decoder
	broken   bool // the token stream failed; stop walking
	out      rules.Settings
	network  Network
	envVars  []env.Var
	hooks    hooks.Settings
	warnings []string
	errs     []error
}

// read fills r.out, r.warnings and r.errs.
func (r *reader) read() {
	if len(bytes.TrimSpace(r.data)) == 0 {
		r.errs = append(r.errs, &Error{Pos: srcpos.Pos{File: r.file}, Message: "the file is empty; write {} for no settings"})
		return
	}
	// Unmarshalling into a RawMessage checks the syntax and nothing else.
	var raw json.RawMessage
	if err := json.Unmarshal(r.data, &raw); err != nil {
		off := 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included.
			off = max(int(se.Offset)-1, 0)
		}
		r.problem(off, "", "JSON syntax error: %v", err)
		return
	}
	r.dec = json.NewDecoder(bytes.NewReader(r.data))
	r.dec.UseNumber() // numbers are only skipped or reported: never convert them
	tok, off := r.token()
	if tok != json.Delim('{') {
		r.problem(off, "", "the file must hold a JSON object, not %s", tokenKind(tok))
		return
	}
	seen := map[string]bool{}
	for r.more() {
		key, off := r.key(seen, "")
		switch {
		case key == "permissions":
			r.permissions()
		case key == "network":
			r.networkLists()
		case key == "env":
			r.env()
		case key == "hooks":
			r.hooksValue()
		case key == "disableAllHooks":
			r.disableAllHooks()
		case key == "$schema":
			r.skip()
		case spell.Suggest(key, topLevelKeys()) != "":
			r.problem(off, "", "unknown top-level key %q (did you mean %s?)", key, spell.Suggest(key, topLevelKeys()))
			r.skip()
		default:
			r.warnings = append(r.warnings, fmt.Sprintf("%s: unknown top-level key %q ignored; luatool reads only %s", r.position(off), key, quotedList(topLevelKeys())))
			r.skip()
		}
	}
	r.token() // the closing brace
	r.out.AdditionalDirectories = dedupeDirs(r.out.AdditionalDirectories)
}

// permissions reads the value of the "permissions" key.
func (r *reader) permissions() {
	const path = "permissions"
	tok, off := r.token()
	if tok != json.Delim('{') {
		r.problem(off, path, "must be an object, not %s", tokenKind(tok))
		r.skipRest(tok)
		return
	}
	seen := map[string]bool{}
	for r.more() {
		key, off := r.key(seen, path)
		at := jsonvalue.JoinKey(path, key)
		switch key {
		case "allow":
			r.rules(at, &r.out.Allow)
		case "ask":
			r.rules(at, &r.out.Ask)
		case "deny":
			r.rules(at, &r.out.Deny)
		case "defaultMode":
			r.mode(at)
		case "additionalDirectories":
			r.directories(at)
		default:
			r.unknownKey(off, path, key, permissionKeys())
		}
	}
	r.token() // the closing brace
}

// unknownKey reports key, at off in the object at path, as none of keys, with a
// did-you-mean, and skips its value.
func (r *reader) unknownKey(off int, path, key string, keys []string) {
	msg := fmt.Sprintf("unknown key %q", key)
	if hint := spell.Suggest(key, keys); hint != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", hint)
	}
	r.problem(off, path, "%s; the keys are %s", msg, strings.Join(keys, ", "))
	r.skip()
}

// networkLists reads the value of the "network" key: {"deny": [...], "allow": [...]}.
func (r *reader) networkLists() {
	const path = "network"
	tok, off := r.token()
	if tok != json.Delim('{') {
		r.problem(off, path, "must be an object {\"deny\": [...], \"allow\": [...]}, not %s", tokenKind(tok))
		r.skipRest(tok)
		return
	}
	keys := []string{"allow", "deny"}
	seen := map[string]bool{}
	for r.more() {
		key, off := r.key(seen, path)
		at := jsonvalue.JoinKey(path, key)
		switch key {
		case "allow":
			r.hosts(at, true, &r.network.Allow)
		case "deny":
			r.hosts(at, false, &r.network.Deny)
		default:
			r.unknownKey(off, path, key, keys)
		}
	}
	r.token() // the closing brace
}

// hosts reads a list of host patterns into list; an allow list may not hold "*".
func (r *reader) hosts(path string, allow bool, list *[]Entry) {
	r.stringList(path, func(at string, off int, text string) {
		p, err := netpolicy.ParsePattern(text)
		switch {
		case err != nil:
			r.problem(off, at, "invalid host pattern: %v", err).Err = err
		case allow && p.IsAny():
			r.problem(off, at, `"*" would let every tool reach loopback, private and cloud metadata addresses; name the hosts or addresses instead`)
		default:
			*list = append(*list, Entry{Pattern: text, Source: r.layer.Name, File: r.file})
		}
	})
}

// rules reads a list of rule strings into list.
func (r *reader) rules(path string, list *[]rules.Rule) {
	r.stringList(path, func(at string, off int, text string) {
		if err := rules.Check(text); err != nil {
			r.problem(off, at, "invalid rule %q: %v", text, err).Err = err
			return
		}
		*list = append(*list, rules.Rule{Text: text, Source: r.layer.Name, File: r.file, Root: r.layer.Root})
	})
}

// mode reads the defaultMode value.
func (r *reader) mode(path string) {
	tok, off := r.token()
	s, ok := tok.(string)
	if !ok {
		r.problem(off, path, "must be a string, not %s", tokenKind(tok))
		r.skipRest(tok)
		return
	}
	m, err := rules.ParseMode(s)
	if err != nil {
		r.problem(off, path, "%v", err)
		return
	}
	r.out.Mode, r.out.ModeSource, r.out.ModeFile = m, r.layer.Name, r.file
}

// directories reads the additionalDirectories list, resolving each entry.
func (r *reader) directories(path string) {
	r.stringList(path, func(at string, off int, dir string) {
		switch {
		case dir == "":
			r.problem(off, at, "a directory may not be empty")
			return
		case dir == "~" || strings.HasPrefix(dir, "~/"):
			if r.layer.Home == "" {
				r.problem(off, at, "cannot expand %q: the home directory is not known", dir)
				return
			}
			dir = filepath.Join(r.layer.Home, dir[1:])
		case !filepath.IsAbs(dir):
			dir = filepath.Join(r.layer.Root, dir)
		}
		r.out.AdditionalDirectories = append(r.out.AdditionalDirectories, filepath.Clean(dir))
	})
}

// stringList reads an array of strings, calling each with the path, the offset and
// the value of every element. Elements of another kind are problems.
func (r *reader) stringList(path string, each func(at string, off int, s string)) {
	tok, off := r.token()
	if tok != json.Delim('[') {
		r.problem(off, path, "must be an array of strings, not %s", tokenKind(tok))
		r.skipRest(tok)
		return
	}
	for i := 0; r.more(); i++ {
		at := jsonvalue.JoinIndex(path, i)
		tok, off := r.token()
		s, ok := tok.(string)
		if !ok {
			r.problem(off, at, "must be a string, not %s", tokenKind(tok))
			r.skipRest(tok)
			continue
		}
		each(at, off, s)
	}
	r.token() // the closing bracket
}

// key reads an object key, reporting a repeated one: JSON decoders disagree on which
// of two values they keep, and Go's keeps the last without a word.
func (r *reader) key(seen map[string]bool, path string) (string, int) {
	tok, off := r.token()
	key, _ := tok.(string) // the syntax check guarantees a string here
	if seen[key] {
		r.problem(off, path, "duplicate key %q", key)
	}
	seen[key] = true
	return key, off
}

// token returns the next token and the offset where it starts; nil once the stream
// has failed.
func (r *reader) token() (json.Token, int) {
	if r.broken {
		return nil, len(r.data)
	}
	off := int(r.dec.InputOffset())
	for off < len(r.data) && strings.IndexByte(" \t\r\n,:", r.data[off]) >= 0 {
		off++
	}
	tok, err := r.dec.Token()
	if err != nil {
		// The document passed the syntax check, so this is not expected; report it
		// rather than read on.
		r.problem(off, "", "%v", err)
		r.broken = true
		return nil, off
	}
	return tok, off
}

// more reports whether the current object or array has another element.
func (r *reader) more() bool { return !r.broken && r.dec.More() }

// skip consumes the next value.
func (r *reader) skip() {
	tok, _ := r.token()
	r.skipRest(tok)
}

// skipRest consumes the rest of a value whose first token was tok.
func (r *reader) skipRest(tok json.Token) {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return
	}
	for depth := 1; depth > 0 && !r.broken; {
		switch t, _ := r.token(); t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// problem records an error at offset off of the file and returns it.
func (r *reader) problem(off int, path, format string, args ...any) *Error {
	e := &Error{Pos: srcpos.Pos{File: r.file, Line: r.line(off), Column: r.column(off)}, Path: path,
		Message: fmt.Sprintf(format, args...)}
	r.errs = append(r.errs, e)
	return e
}

// position renders "file:line:column" for offset off.
func (r *reader) position(off int) string {
	return r.file + ":" + strconv.Itoa(r.line(off)) + ":" + strconv.Itoa(r.column(off))
}

// line returns the 1-based line of offset off.
func (r *reader) line(off int) int {
	return 1 + bytes.Count(r.data[:min(off, len(r.data))], []byte("\n"))
}

// column returns the 1-based column of offset off, counting characters.
func (r *reader) column(off int) int {
	before := r.data[:min(off, len(r.data))]
	return 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
}

// tokenKind names the kind of value a token starts, for messages.
func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

// quotedList renders names as `"a", "b" and "c"`.
func quotedList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	if len(quoted) == 1 {
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
}

// dedupeDirs returns dirs without repeats, in order of first appearance.
func dedupeDirs(dirs []string) []string {
	return Merge(Settings{Permissions: rules.Settings{AdditionalDirectories: dirs}}).Permissions.AdditionalDirectories
}
