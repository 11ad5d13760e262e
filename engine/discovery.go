package engine

import (
	"sort"
	"sync"
)

// discoveredSet is the session's set of deferred tools whose schemas the model has
// been given (by ToolSearch): from then on they are sent like any other tool. It is
// safe for concurrent use.
type discoveredSet struct {
	mu    sync.Mutex
	names map[string]bool
}

func (d *discoveredSet) add(names ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.names == nil {
		d.names = map[string]bool{}
	}
	for _, n := range names {
		d.names[n] = true
	}
}

func (d *discoveredSet) has(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.names[name]
}

func (d *discoveredSet) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.names))
	for n := range d.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Discover marks tools as discovered for the engine's session, by name: their schemas
// have reached the model, so hosts send them from now on. Names are recorded as
// given; a name that is not a tool's is harmless.
func (e *Engine) Discover(names ...string) { e.discovered.add(names...) }

// Discovered reports whether the tool of this name has been discovered in the
// engine's session (by ToolSearch or Discover).
func (e *Engine) Discovered(name string) bool { return e.discovered.has(name) }

// DiscoveredTools returns the names of the discovered tools, sorted.
func (e *Engine) DiscoveredTools() []string { return e.discovered.list() }

// Announced reports whether a tool's schema is sent to the model: it is not deferred,
// or it has been discovered. A deferred tool that is not announced is known to the
// model by name only, until ToolSearch reveals it.
func (e *Engine) Announced(t *Tool) bool { return !t.Deferred() || e.Discovered(t.Name()) }
