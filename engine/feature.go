package engine

import "log/slog"

// A Feature is what a file may serve instead of a tool (ToolDef.Feature): one of
// MCP's other server features, a prompt or a resource (package engine/feature). The
// engine loads, checks and reloads a feature as it does a tool, and serves it in the
// registry within the keys of its kind (Registry.Features): two files of a
// directory that declare one key are both left out, and a later directory overrides
// an earlier one. Its changes are reported as Events of the kinds "KIND added",
// "KIND updated" and "KIND removed", named by its key, and a change of what it serves
// that a call makes (CallContext.FeatureChanged) as one of the kind "KIND changed". A
// Feature must be safe for concurrent use.
type Feature interface {
	// Kind names the kind of feature ("prompt", "resource"): each kind has keys of
	// its own.
	Kind() string
	// Key is what the feature is served by within its kind: a prompt's name, a
	// resource's URI or URI template.
	Key() string
	// Source says where the feature was defined: its file.
	Source() string
	// String names the feature in messages by its kind and key: prompt name
	// "review", resource URI "docs://readme".
	String() string
	// Check says what is wrong with the feature, as diag.MemberErrors, joined (as
	// Build does for a tool); nil when it may be served.
	Check() error
}

// buildFeature checks the definition of a feature file.
func buildFeature(def ToolDef) (*Tool, error) {
	return &Tool{def: def, bound: defaultMemberTimeout}, def.Feature.Check()
}

// FeatureContext returns the CallContext of a feature's code served from reg (a
// prompt's get, a resource's read): the engine's directories, mode and the tool
// names of reg, with what the code logs going to the engine's Logger, under kind and
// key, and no session: nothing of a principal's.
func (e *Engine) FeatureContext(reg *Registry, kind, key string) *CallContext {
	return &CallContext{
		Cwd: e.opts.Cwd, Roots: e.opts.Roots, Mode: e.policy.Load().mode, Tools: reg.Names(),
		logTo:  featureLog{logger: e.opts.Logger, kind: kind, key: key},
		engine: e, registry: reg,
	}
}

// featureLog sends what a feature's code logs to the engine's Logger, under the
// feature's kind and key.
type featureLog struct {
	logger    *slog.Logger
	kind, key string
}

func (f featureLog) Log(line string) { f.logger.Info(f.kind+" log", f.kind, f.key, "line", line) }

// FeatureChanged tells the engine's subscribers that what the feature of kind and
// key serves has changed by the call's doing (a tool wrote the content of a
// resource): an Event of the kind kind+" changed", named key, with no File, since
// the definition is the same. It returns once the subscribers have been told; a
// CallContext of no engine tells nobody.
func (cc *CallContext) FeatureChanged(kind, key string) {
	if cc == nil || cc.engine == nil {
		return
	}
	cc.engine.publish(Event{Kind: EventKind(kind + " changed"), Name: key})
}
