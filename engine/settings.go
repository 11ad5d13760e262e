package engine

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

	"github.com/luatool/luatool/internal/spell"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// This file is the settings layer of the permission system: the settings files, the
// permission flags of the command line, and how their layers merge. Rule strings stay
// strings here; each one is checked, when it is read, by the rule parser handed in.
//
// A settings file is shaped like Claude Code's:
//
//	{"permissions": {"allow": ["Rule", ...], "ask": [...], "deny": [...],
//	                 "defaultMode": "default", "additionalDirectories": ["dir", ...]}}
//
// Inside "permissions" every key must be known: a misspelt key would drop rules the
// user believes are in force, so it is an error with a hint. At the top level, keys
// other than "permissions" and "$schema" are reported as warnings and otherwise
// ignored, so that a Claude-style file carrying "env", "model" or "hooks" still
// loads; a key that looks like a misspelling of "permissions" is an error.

// RuleSource says which layer of the settings a rule or the mode came from.
type RuleSource string

// The sources, in the order their layers are merged. The order decides which
// matching rule is reported, and which mode wins; it never lets an allow beat a
// deny.
const (
	// SourceUser is the user's settings file, $XDG_CONFIG_HOME/luatool/settings.json.
	SourceUser RuleSource = "user"
	// SourceProject is the project's settings file, .luatool/settings.json.
	SourceProject RuleSource = "project"
	// SourceFlag is the settings file named by --settings.
	SourceFlag RuleSource = "flag"
	// SourceCLI is the --allow, --ask, --deny and --mode flags.
	SourceCLI RuleSource = "cli"
	// SourceSession is the rules added while running, such as "allow always" answers.
	SourceSession RuleSource = "session"
)

// A SourcedRule is a permission rule as written, with where it came from.
type SourcedRule struct {
	// Text is the rule, such as "Bash(git status)" or "Read(./secrets/**)".
	Text string
	// Source is the layer that holds the rule.
	Source RuleSource
	// File is the settings file that holds the rule; empty for cli and session rules.
	File string
	// Root is the absolute directory that "/x" path patterns of the rule are relative
	// to: the home directory for user settings, the project directory for project
	// settings, the directory holding the file for a --settings file, and the working
	// directory for cli and session rules.
	Root string
}

// PermissionSettings is one layer of permission settings (a file, the flags, the
// session) or the merge of several. The zero value is an empty layer.
type PermissionSettings struct {
	// Allow, Ask and Deny are the rules of each list, in source order.
	Allow, Ask, Deny []SourcedRule
	// Mode is the permission mode; empty when no layer sets one, which the engine
	// takes as ModeDefault.
	Mode Mode
	// ModeSource and ModeFile say where Mode was set (ModeFile is empty for the cli).
	ModeSource RuleSource
	ModeFile   string
	// AdditionalDirectories are directories tools may touch besides the working
	// directory: absolute, cleaned, without duplicates.
	AdditionalDirectories []string
}

// Modes returns the permission modes, in the order messages list them.
func Modes() []Mode {
	return []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypassPermissions, ModeDontAsk}
}

// ParseMode returns the mode named s. Names are case-sensitive, as in Claude Code;
// for any other s the error lists the modes, with a hint when s is close to one.
func ParseMode(s string) (Mode, error) {
	var names []string
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
		names = append(names, string(m))
	}
	msg := fmt.Sprintf("unknown mode %q", s)
	if hint := spell.Suggest(s, names); hint != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", hint)
	}
	return "", fmt.Errorf("%s; the modes are %s", msg, strings.Join(names, ", "))
}

// A SettingsError is one problem with a settings file. ReadSettingsFile reports every
// problem it finds; several are joined with errors.Join, and errors.As finds the
// first.
type SettingsError struct {
	// File is the settings file.
	File string
	// Line and Column (1-based, Column counting characters) locate the problem; zero
	// when it concerns the file as a whole (it cannot be read, it is empty).
	Line, Column int
	// Path is the JSON path of the offending value, such as "permissions.allow[2]";
	// empty for syntax errors and problems of the file as a whole.
	Path string
	// Message says what is wrong.
	Message string
	// Err is the underlying error (reading the file, the rule parser), or nil.
	Err error
}

// Error renders "file:line:column: path: message".
func (e *SettingsError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Unwrap returns Err, so that errors.Is(err, fs.ErrNotExist) tells a missing file.
func (e *SettingsError) Unwrap() error { return e.Err }

// ReadSettingsFile reads one settings file of the given source. Root is the absolute
// directory the file's "/x" path patterns are relative to, and the directory relative
// entries of additionalDirectories are resolved against ("~" and "~/x" are relative to
// the user's home). Parse checks one rule string (the rule parser, for example
// func(s string) error { _, err := ParseRule(s); return err }); it must not be nil.
//
// The warnings are the ignored top-level keys, as "file:line:column: ..." lines. The
// error reports every problem found (see SettingsError); a file that cannot be read
// is an error too, one for which errors.Is(err, fs.ErrNotExist) tells a missing file.
// On error the settings are the zero value: a file is used whole or not at all.
func ReadSettingsFile(path string, source RuleSource, root string, parse func(string) error) (PermissionSettings, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = "cannot " + pe.Op + ": " + pe.Err.Error()
		}
		return PermissionSettings{}, nil, &SettingsError{File: path, Message: msg, Err: err}
	}
	r := settingsReader{file: path, source: source, root: root, parse: parse,
		data: bytes.TrimPrefix(data, []byte("\ufeff"))}
	r.read()
	if len(r.errs) > 0 {
		return PermissionSettings{}, nil, errors.Join(r.errs...)
	}
	return r.out, r.warnings, nil
}

// SettingsFiles says where the settings files of a run are. Hosts fill it from the
// environment and the command line; the engine reads no environment variable for it.
type SettingsFiles struct {
	// Home is the user's home directory, the root of user settings rules. Empty means
	// no user settings are read.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME. Empty or relative (which the XDG specification
	// says to ignore) means Home/.config.
	ConfigHome string
	// ProjectDir is the project directory, the root of project settings rules. Empty
	// means no project settings are read.
	ProjectDir string
	// Explicit is the file named by --settings; empty for none. Unlike the others it
	// must exist.
	Explicit string
}

// UserPath returns the user settings file, ConfigHome/luatool/settings.json, or ""
// when Home is empty.
func (f SettingsFiles) UserPath() string {
	if f.Home == "" {
		return ""
	}
	config := f.ConfigHome
	if !filepath.IsAbs(config) {
		config = filepath.Join(f.Home, ".config")
	}
	return filepath.Join(config, "luatool", "settings.json")
}

// ProjectPath returns the project settings file, ProjectDir/.luatool/settings.json, or
// "" when ProjectDir is empty.
func (f SettingsFiles) ProjectPath() string {
	if f.ProjectDir == "" {
		return ""
	}
	return filepath.Join(f.ProjectDir, ".luatool", "settings.json")
}

// LoadSettings reads the user, project and --settings files, in that order, and
// merges them. A missing user or project file is no error; a missing --settings file
// is. The root of a --settings file's rules is the directory holding it, as Claude
// Code does for its --settings file: a file that travels with a directory keeps its
// "/x" patterns meaning the same. Relative Home, ProjectDir and Explicit are made
// absolute against the working directory. The warnings are those of every file.
func LoadSettings(files SettingsFiles, parse func(string) error) (PermissionSettings, []string, error) {
	var (
		layers   []PermissionSettings
		warnings []string
		errs     []error
	)
	read := func(path string, source RuleSource, root string, optional bool) {
		path, err := filepath.Abs(path)
		if err == nil {
			root, err = filepath.Abs(root)
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		layer, warns, err := ReadSettingsFile(path, source, root, parse)
		if optional && errors.Is(err, os.ErrNotExist) {
			return
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		layers = append(layers, layer)
		warnings = append(warnings, warns...)
	}
	if p := files.UserPath(); p != "" {
		read(p, SourceUser, files.Home, true)
	}
	if p := files.ProjectPath(); p != "" {
		read(p, SourceProject, files.ProjectDir, true)
	}
	if files.Explicit != "" {
		read(files.Explicit, SourceFlag, filepath.Dir(files.Explicit), false)
	}
	if len(errs) > 0 {
		return PermissionSettings{}, warnings, errors.Join(errs...)
	}
	return MergeSettings(layers...), warnings, nil
}

// PermissionFlags are the permission flags of the command line.
type PermissionFlags struct {
	// Allow, Ask and Deny are the values of the repeatable --allow, --ask and --deny.
	Allow, Ask, Deny []string
	// Mode is the value of --mode; empty when it was not given.
	Mode string
}

// CLISettings builds the cli layer from the flags: rules rooted at cwd (which should
// be absolute), each checked with parse, and the mode checked with ParseMode. The
// error reports every bad value, naming its flag.
func CLISettings(flags PermissionFlags, cwd string, parse func(string) error) (PermissionSettings, error) {
	var (
		out  PermissionSettings
		errs []error
	)
	add := func(flag string, texts []string, list *[]SourcedRule) {
		for _, text := range texts {
			if err := checkRuleText(text, parse); err != nil {
				errs = append(errs, fmt.Errorf("--%s %q: %w", flag, text, err))
				continue
			}
			*list = append(*list, SourcedRule{Text: text, Source: SourceCLI, Root: cwd})
		}
	}
	add("allow", flags.Allow, &out.Allow)
	add("ask", flags.Ask, &out.Ask)
	add("deny", flags.Deny, &out.Deny)
	if flags.Mode != "" {
		if m, err := ParseMode(flags.Mode); err != nil {
			errs = append(errs, fmt.Errorf("--mode: %w", err))
		} else {
			out.Mode, out.ModeSource = m, SourceCLI
		}
	}
	if len(errs) > 0 {
		return PermissionSettings{}, errors.Join(errs...)
	}
	return out, nil
}

// MergeSettings merges layers given in source order (user, project, flag, cli,
// session): the lists are concatenated in that order, the mode is that of the last
// layer that sets one, and the additional directories are those of every layer, each
// once, in order of first appearance. The result shares no slice with the layers.
func MergeSettings(layers ...PermissionSettings) PermissionSettings {
	var out PermissionSettings
	seen := map[string]bool{}
	for _, l := range layers {
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
	return out
}

// Describe returns the settings as lines for people (luatool describe, debugging):
// the mode, then the deny, ask and allow rules, each with where it came from, then
// the additional directories. For example:
//
//	mode acceptEdits  (cli)
//	deny Read(./secrets/**)  (project: /work/p/.luatool/settings.json)
//	allow Bash(git status)  (session)
//	directory /work/shared
func (s PermissionSettings) Describe() []string {
	mode, origin := s.Mode, "(not set)"
	if mode == "" {
		mode = ModeDefault
	} else {
		origin = describeOrigin(s.ModeSource, s.ModeFile)
	}
	lines := []string{fmt.Sprintf("mode %s  %s", mode, origin)}
	for _, list := range []struct {
		behavior PermissionBehavior
		rules    []SourcedRule
	}{{Deny, s.Deny}, {Ask, s.Ask}, {Allow, s.Allow}} {
		for _, r := range list.rules {
			lines = append(lines, fmt.Sprintf("%s %s  %s", list.behavior, r.Text, describeOrigin(r.Source, r.File)))
		}
	}
	for _, d := range s.AdditionalDirectories {
		lines = append(lines, "directory "+d)
	}
	return lines
}

// describeOrigin renders "(source: file)", or "(source)" without a file.
func describeOrigin(source RuleSource, file string) string {
	if file == "" {
		return "(" + string(source) + ")"
	}
	return "(" + string(source) + ": " + file + ")"
}

// checkRuleText checks one rule string: never empty, and accepted by parse.
func checkRuleText(text string, parse func(string) error) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("a rule may not be empty")
	}
	return parse(text)
}

// permissionKeys are the keys a "permissions" object may hold.
func permissionKeys() []string {
	return []string{"allow", "ask", "deny", "defaultMode", "additionalDirectories"}
}

// settingsReader reads one settings file: first a syntax check of the whole
// document, then a walk over its tokens that knows where each value starts, so that
// every problem has a line, a column and a JSON path.
type settingsReader struct {
	file   string
	source RuleSource
	root   string
	parse  func(string) error
	data   []byte

	dec      *json.Decoder
	broken   bool // the token stream failed; stop walking
	out      PermissionSettings
	warnings []string
	errs     []error
}

// read fills r.out, r.warnings and r.errs.
func (r *settingsReader) read() {
	if len(bytes.TrimSpace(r.data)) == 0 {
		r.errs = append(r.errs, &SettingsError{File: r.file, Message: "the file is empty; write {} for no settings"})
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
		case key == "$schema":
			r.skip()
		case spell.Suggest(key, []string{"permissions"}) != "":
			r.problem(off, "", "unknown top-level key %q (did you mean permissions?)", key)
			r.skip()
		default:
			r.warnings = append(r.warnings, fmt.Sprintf("%s: unknown top-level key %q ignored; luatool reads only \"permissions\"", r.position(off), key))
			r.skip()
		}
	}
	r.token() // the closing brace
	r.out.AdditionalDirectories = dedupeDirs(r.out.AdditionalDirectories)
}

// permissions reads the value of the "permissions" key.
func (r *settingsReader) permissions() {
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
			msg := fmt.Sprintf("unknown key %q", key)
			if hint := spell.Suggest(key, permissionKeys()); hint != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", hint)
			}
			r.problem(off, path, "%s; the keys are %s", msg, strings.Join(permissionKeys(), ", "))
			r.skip()
		}
	}
	r.token() // the closing brace
}

// rules reads a list of rule strings into list.
func (r *settingsReader) rules(path string, list *[]SourcedRule) {
	r.stringList(path, func(at string, off int, text string) {
		if err := checkRuleText(text, r.parse); err != nil {
			r.problem(off, at, "invalid rule %q: %v", text, err).Err = err
			return
		}
		*list = append(*list, SourcedRule{Text: text, Source: r.source, File: r.file, Root: r.root})
	})
}

// mode reads the defaultMode value.
func (r *settingsReader) mode(path string) {
	tok, off := r.token()
	s, ok := tok.(string)
	if !ok {
		r.problem(off, path, "must be a string, not %s", tokenKind(tok))
		r.skipRest(tok)
		return
	}
	m, err := ParseMode(s)
	if err != nil {
		r.problem(off, path, "%v", err)
		return
	}
	r.out.Mode, r.out.ModeSource, r.out.ModeFile = m, r.source, r.file
}

// directories reads the additionalDirectories list, resolving each entry.
func (r *settingsReader) directories(path string) {
	r.stringList(path, func(at string, off int, dir string) {
		switch {
		case dir == "":
			r.problem(off, at, "a directory may not be empty")
			return
		case dir == "~" || strings.HasPrefix(dir, "~/"):
			home, err := os.UserHomeDir()
			if err != nil {
				r.problem(off, at, "cannot expand %q: %v", dir, err)
				return
			}
			dir = filepath.Join(home, dir[1:])
		case !filepath.IsAbs(dir):
			dir = filepath.Join(r.root, dir)
		}
		r.out.AdditionalDirectories = append(r.out.AdditionalDirectories, filepath.Clean(dir))
	})
}

// stringList reads an array of strings, calling each with the path, the offset and
// the value of every element. Elements of another kind are problems.
func (r *settingsReader) stringList(path string, each func(at string, off int, s string)) {
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
func (r *settingsReader) key(seen map[string]bool, path string) (string, int) {
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
func (r *settingsReader) token() (json.Token, int) {
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
func (r *settingsReader) more() bool { return !r.broken && r.dec.More() }

// skip consumes the next value.
func (r *settingsReader) skip() {
	tok, _ := r.token()
	r.skipRest(tok)
}

// skipRest consumes the rest of a value whose first token was tok.
func (r *settingsReader) skipRest(tok json.Token) {
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
func (r *settingsReader) problem(off int, path, format string, args ...any) *SettingsError {
	e := &SettingsError{File: r.file, Line: r.line(off), Column: r.column(off), Path: path,
		Message: fmt.Sprintf(format, args...)}
	r.errs = append(r.errs, e)
	return e
}

// position renders "file:line:column" for offset off.
func (r *settingsReader) position(off int) string {
	return r.file + ":" + strconv.Itoa(r.line(off)) + ":" + strconv.Itoa(r.column(off))
}

// line returns the 1-based line of offset off.
func (r *settingsReader) line(off int) int {
	return 1 + bytes.Count(r.data[:min(off, len(r.data))], []byte("\n"))
}

// column returns the 1-based column of offset off, counting characters.
func (r *settingsReader) column(off int) int {
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

// dedupeDirs returns dirs without repeats, in order of first appearance.
func dedupeDirs(dirs []string) []string {
	return MergeSettings(PermissionSettings{AdditionalDirectories: dirs}).AdditionalDirectories
}
