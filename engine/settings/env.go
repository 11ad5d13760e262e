package settings

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// envValueKeys are the keys of a value given as an object in "env".
func envValueKeys() []string { return []string{"value", "secret", "tools"} }

// env reads the value of the "env" key: an object of names, as in Claude Code's
// settings, each value a string (for every tool, not secret) or an object
//
//	{"value": "...", "secret": true, "tools": ["Weather"]}
//
// whose value is required, whose secret defaults to true (a value given this way
// is taken for a secret unless it says otherwise: fail closed), and whose tools,
// when present, are the only tools that may read it. A secret shorter than
// env.MinSecretLength is an error here, where it stands in the file.
func (r *reader) env() {
	const path = "env"
	tok, off := r.token()
	if tok != json.Delim('{') {
		r.problem(off, path, "must be an object of names and values, not %s", tokenKind(tok))
		r.skipRest(tok)
		return
	}
	seen := map[string]bool{}
	for r.more() {
		name, keyOff := r.key(seen, path)
		at := jsonvalue.JoinKey(path, name)
		v := env.Var{Name: name}
		valueOff, plain := r.envValue(at, &v)
		if valueOff < 0 {
			continue
		}
		v.Source = r.position(keyOff)
		if plain && looksSecret(name) {
			r.warnings = append(r.warnings, fmt.Sprintf("%s: env %s looks like a secret but is given as a plain string, which every tool may read and nothing redacts; "+
				`give it as {"value": "..."} to make it a secret (or {"value": "...", "secret": false} to say it is none)`, v.Source, name))
		}
		if err := env.Check(v); err != nil {
			switch {
			case v.Secret && len(v.Value) < env.MinSecretLength:
				r.problem(valueOff, at, "%v; give a longer one, or \"secret\": false for a value that need not be hidden", err).Err = err
			default:
				r.problem(keyOff, at, "%v", err).Err = err
			}
			continue
		}
		r.envVars = append(r.envVars, v)
	}
	r.token() // the closing brace
}

// secretWords are the parts of a name that say its value is most likely secret.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"}

// looksSecret reports whether a name says its value is most likely secret.
func looksSecret(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// envValue reads one value of "env" into v and returns the offset of its value
// string, or -1 when it is wrong (the problem is recorded), and whether it was given
// as a plain string.
func (r *reader) envValue(at string, v *env.Var) (int, bool) {
	tok, off := r.token()
	switch t := tok.(type) {
	case string:
		v.Value = t
		return off, true
	case json.Delim:
		if t == '{' {
			return r.envObject(at, off, v), false
		}
	}
	r.problem(off, at, `must be a string, or an object {"value": "...", "secret": true, "tools": [...]}, not %s`, tokenKind(tok))
	r.skipRest(tok)
	return -1, false
}

// envObject reads the rest of a value given as an object, which starts at off.
func (r *reader) envObject(at string, off int, v *env.Var) int {
	valueOff, ok := -1, true
	v.Secret = true
	seen := map[string]bool{}
	for r.more() {
		key, keyOff := r.key(seen, at)
		keyAt := jsonvalue.JoinKey(at, key)
		switch key {
		case "value":
			tok, o := r.token()
			s, isString := tok.(string)
			if !isString {
				r.problem(o, keyAt, "must be a string, not %s", tokenKind(tok))
				r.skipRest(tok)
				ok = false
				continue
			}
			v.Value, valueOff = s, o
		case "secret":
			tok, o := r.token()
			b, isBool := tok.(bool)
			if !isBool {
				r.problem(o, keyAt, "must be true or false, not %s", tokenKind(tok))
				r.skipRest(tok)
				ok = false
				continue
			}
			v.Secret = b
		case "tools":
			var tools []string
			before := len(r.errs)
			r.stringList(keyAt, func(_ string, _ int, s string) { tools = append(tools, s) })
			switch {
			case len(r.errs) > before:
				ok = false
			case len(tools) == 0:
				r.problem(keyOff, keyAt, "an empty list gives the value to no tool; leave \"tools\" out to give it to every tool")
				ok = false
			}
			v.Tools = tools
		default:
			r.unknownKey(keyOff, at, key, envValueKeys())
			ok = false
		}
	}
	r.token() // the closing brace
	if valueOff < 0 && ok {
		r.problem(off, at, `has no "value": give the value as {"value": "...", ...}`)
	}
	if !ok || valueOff < 0 {
		return -1
	}
	return valueOff
}

// mergeEnv merges the values of layers in order: a later value of a name replaces
// an earlier one where it stood.
func mergeEnv(layers []Settings) []env.Var {
	var out []env.Var
	at := map[string]int{}
	for _, l := range layers {
		for _, v := range l.Env {
			if i, ok := at[v.Name]; ok {
				out[i] = v
				continue
			}
			at[v.Name] = len(out)
			out = append(out, v)
		}
	}
	return out
}
