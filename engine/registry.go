package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/srcpos"

	"github.com/luatool/luatool/internal/spell"
)

// A Registry is an immutable snapshot of the tools on offer: looked up by name or
// alias, listed in name order; and of the features of the tool directories, their
// prompts and resources (see Features). Tools whose isEnabled answered false when the
// snapshot was built are left out, as in the original, where isEnabled is asked only
// when the tool list is assembled. A Registry is safe for concurrent use.
type Registry struct {
	// hooks are the hooks of hook files, in order of file name.
	hooks  []hooks.Hook
	tools  []*Tool
	names  []string
	byName map[string]*Tool

	// features are the features by kind, each kind's in key order.
	features map[string][]Feature
}

// withFeatures sets the features of the snapshot, whose keys are unique within each
// kind (the caller has resolved overrides).
func (r *Registry) withFeatures(features []Feature) {
	for _, f := range features {
		if r.features == nil {
			r.features = map[string][]Feature{}
		}
		r.features[f.Kind()] = append(r.features[f.Kind()], f)
	}
	for _, list := range r.features {
		slices.SortFunc(list, func(a, b Feature) int { return strings.Compare(a.Key(), b.Key()) })
	}
}

// Features returns the features of a kind ("prompt", "resource"), in key order. The
// slice must not be modified.
func (r *Registry) Features(kind string) []Feature { return r.features[kind] }

// Feature finds a feature of a kind by its key.
func (r *Registry) Feature(kind, key string) (Feature, bool) {
	list := r.features[kind]
	i, ok := slices.BinarySearchFunc(list, key, func(f Feature, key string) int { return strings.Compare(f.Key(), key) })
	if !ok {
		return nil, false
	}
	return list[i], true
}

// newRegistry builds a snapshot of tools, listed in order of precedence: their names
// are unique (the caller has resolved overrides), and a later tool wins an alias two
// tools claim. An alias that is another tool's name is ignored. enabled tells whether
// a tool is offered; when it cannot tell, the tool is hidden with a warning. Problems
// come back as diagnostics: a snapshot is always built.
func newRegistry(tools []*Tool, enabled func(*Tool) (bool, error)) (*Registry, []diag.Diagnostic) {
	var diags []diag.Diagnostic
	warn := func(t *Tool, format string, args ...any) {
		diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: t.Source()}, Severity: diag.SeverityWarning, Message: fmt.Sprintf(format, args...)})
	}
	r := &Registry{byName: map[string]*Tool{}}
	for _, t := range tools {
		ok, err := enabled(t)
		if err != nil {
			warn(t, "tool %s is hidden: isEnabled failed: %v", t.Name(), err)
		}
		if ok {
			r.tools = append(r.tools, t)
			r.byName[t.Name()] = t
		}
	}
	aliasOf := map[string]*Tool{}
	for _, t := range r.tools {
		for _, a := range t.Aliases() {
			if owner, ok := r.byName[a]; ok && aliasOf[a] == nil {
				warn(t, "alias %s of tool %s is ignored: it is the name of the tool from %s", a, t.Name(), owner.Source())
				continue
			}
			if prev, ok := aliasOf[a]; ok {
				warn(prev, "alias %s of tool %s is taken over by tool %s from %s", a, prev.Name(), t.Name(), t.Source())
			}
			aliasOf[a] = t
			r.byName[a] = t
		}
	}
	// A name with dots is also found under its API name (dots as underscores), the
	// name Anthropic and OpenAI models call it by, unless that is taken.
	for _, t := range r.tools {
		if api, err := APIName(t.Name()); err == nil && r.byName[api] == nil {
			r.byName[api] = t
		}
	}
	sort.Slice(r.tools, func(i, j int) bool { return r.tools[i].Name() < r.tools[j].Name() })
	r.names = make([]string, len(r.tools))
	for i, t := range r.tools {
		r.names[i] = t.Name()
	}
	return r, diags
}

// without returns the snapshot without the tools hide names (by their names; their
// aliases and API names go with them).
func (r *Registry) without(hide func(name string) bool) *Registry {
	v := &Registry{byName: map[string]*Tool{}, features: r.features}
	for _, t := range r.tools {
		if !hide(t.Name()) {
			v.tools = append(v.tools, t)
			v.names = append(v.names, t.Name())
		}
	}
	for name, t := range r.byName {
		if !hide(t.Name()) {
			v.byName[name] = t
		}
	}
	return v
}

// Lookup finds a tool by name, alias or API name (see APIName).
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Tools returns the tools in name order. The slice must not be modified.
func (r *Registry) Tools() []*Tool { return r.tools }

// Names returns the tool names in order. The slice must not be modified.
func (r *Registry) Names() []string { return r.names }

// Suggest returns the tool name closest to name, for "did you mean" hints, or "".
func (r *Registry) Suggest(name string) string {
	return spell.Suggest(name, r.Names())
}
