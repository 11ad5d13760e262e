package env

import (
	"fmt"
	"slices"
	"sort"

	"github.com/luatool/luatool/internal/nameshape"
)

// MinSecretLength is the shortest value a secret Var may have, in bytes. A
// shorter string turns up by chance in ordinary text, so redacting it would garble
// results, and the pattern of what was replaced would give the value away.
const MinSecretLength = 8

// envNamePattern is the rule for Var names: the shape of an environment
// variable's name, which the values usually come from.
var envNamePattern = nameshape.MustParse(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// A Var is one value a host hands to its tools explicitly: Lua tools read it
// with env.get(Name). Tools never see the process's environment, only these.
type Var struct {
	// Name is what tools ask for: a letter or _, then letters, digits and _.
	Name string
	// Value is the value.
	Value string
	// Secret marks a value that must not be shown: only a tool's call may read it,
	// and the engine replaces it with [redacted:NAME] in everything it hands on (see
	// Redactor). It must be at least MinSecretLength bytes long.
	Secret bool
	// Tools, when not empty, are the only tools that may read the value, by name
	// (aliases do not count); empty means every tool.
	Tools []string
	// Source says where the value was given, for messages: "file:line:column" or
	// "--env". Empty means unknown.
	Source string
}

// Check reports what is wrong with v, or nil: a name that is not one, a
// secret shorter than MinSecretLength, a tool name that no tool can have. Hosts
// that read values from files call it to report the problem where it stands.
func Check(v Var) error {
	if !envNamePattern.MatchString(v.Name) {
		return fmt.Errorf("%q is not a valid name: a letter or _, then letters, digits or _ (as environment variables are named)", v.Name)
	}
	if v.Secret && len(v.Value) < MinSecretLength {
		return fmt.Errorf("%s is a secret of %d bytes; a secret must be at least %d bytes long to be redacted safely (a shorter value turns up in ordinary text by chance)",
			v.Name, len(v.Value), MinSecretLength)
	}
	for _, t := range v.Tools {
		if !nameshape.ToolName().MatchString(t) {
			return fmt.Errorf("%s: %q is not a tool name (%s)", v.Name, t, nameshape.ToolName())
		}
	}
	return nil
}

// A Set is the set of values an engine hands to its tools (engine.Options.Env), and
// the Redactor of its secrets. Build one with New; a nil *Set holds no value. It is
// immutable and safe for concurrent use.
type Set struct {
	vars     map[string]Var
	redactor *Redactor
}

// New checks vars (Check) and returns their Set. A later value of a name
// replaces an earlier one, as later settings layers override earlier ones. The
// error names the source of the first value that is wrong.
func New(vars []Var) (*Set, error) {
	e := &Set{vars: map[string]Var{}}
	for _, v := range vars {
		if err := Check(v); err != nil {
			if v.Source != "" {
				return nil, fmt.Errorf("%s: %w", v.Source, err)
			}
			return nil, err
		}
		v.Tools = slices.Clone(v.Tools)
		e.vars[v.Name] = v
	}
	secrets := map[string]string{}
	for _, v := range e.vars {
		if v.Secret {
			secrets[v.Name] = v.Value
		}
	}
	e.redactor = newRedactor(secrets)
	return e, nil
}

// Lookup returns the value name has for the tool named tool: ok is false when there
// is none, or when the value is given to other tools only, so that a tool cannot
// tell a value kept from it from one that does not exist.
func (e *Set) Lookup(tool, name string) (Var, bool) {
	if e == nil {
		return Var{}, false
	}
	v, ok := e.vars[name]
	if !ok || (len(v.Tools) > 0 && !slices.Contains(v.Tools, tool)) {
		return Var{}, false
	}
	return v, true
}

// Names returns the names the tool named tool may read, sorted.
func (e *Set) Names(tool string) []string {
	var names []string
	for _, v := range e.Vars() {
		if _, ok := e.Lookup(tool, v.Name); ok {
			names = append(names, v.Name)
		}
	}
	return names
}

// Vars returns every value, sorted by name, for hosts that show or check them.
func (e *Set) Vars() []Var {
	if e == nil {
		return nil
	}
	out := make([]Var, 0, len(e.vars))
	for _, v := range e.vars {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Redactor returns the redactor of the secrets; nil (which redacts nothing) when
// there are none.
func (e *Set) Redactor() *Redactor {
	if e == nil {
		return nil
	}
	return e.redactor
}
