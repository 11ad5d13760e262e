package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/luatool/luatool/bindings"
)

// A Registry is an immutable snapshot of the tools on offer: looked up by name or
// alias, listed in name order. Tools whose isEnabled answered false when the snapshot
// was built are left out, as in the original, where isEnabled is asked only when the
// tool list is assembled. A Registry is safe for concurrent use.
type Registry struct {
	tools  []*Tool
	names  []string
	byName map[string]*Tool
}

// NewRegistry builds a snapshot. A name or alias claimed by two tools is an error
// naming both sources.
func NewRegistry(ctx context.Context, tools []*Tool) (*Registry, error) {
	return newRegistry(tools, func(t *Tool) bool { return t.IsEnabled(ctx) })
}

// newRegistry builds a snapshot of the tools for which enabled answers true.
func newRegistry(tools []*Tool, enabled func(*Tool) bool) (*Registry, error) {
	r := &Registry{byName: map[string]*Tool{}}
	for _, t := range tools {
		if !enabled(t) {
			continue
		}
		for _, name := range append([]string{t.Name()}, t.Aliases()...) {
			if other, dup := r.byName[name]; dup {
				return nil, fmt.Errorf("tool name %q is declared by both %s and %s", name, other.Source(), t.Source())
			}
			r.byName[name] = t
		}
		r.tools = append(r.tools, t)
	}
	sort.Slice(r.tools, func(i, j int) bool { return r.tools[i].Name() < r.tools[j].Name() })
	r.names = make([]string, len(r.tools))
	for i, t := range r.tools {
		r.names[i] = t.Name()
	}
	return r, nil
}

// Lookup finds a tool by name or alias.
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
	return bindings.Suggest(name, r.Names())
}
