package engine

import (
	"context"
	"maps"
	"slices"
)

// Discover marks tools as discovered in the session of ctx's principal, by name:
// their schemas have reached the model, so hosts send them from now on. Names are
// recorded as given; a name that is not a tool's is harmless.
func (e *Engine) Discover(ctx context.Context, names ...string) {
	e.sessionFor(ctx).discover(ctx, names...)
}

// DiscoveredTools returns the names of the tools discovered in the session of ctx's
// principal (by ToolSearch or Discover), sorted.
func (e *Engine) DiscoveredTools(ctx context.Context) []string {
	return slices.Sorted(maps.Keys(e.sessionFor(ctx).discovered(ctx)))
}

// announced reports whether a tool's schema is sent to the model, given the tools
// discovered in the session: it is not deferred, or it has been discovered. A
// deferred tool that is not announced is known to the model by name only, until
// ToolSearch reveals it.
func announced(t *Tool, discovered map[string]bool) bool {
	return !t.Deferred() || discovered[t.Name()]
}
