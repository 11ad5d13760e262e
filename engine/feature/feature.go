// Package feature is MCP's other two server features, beside tools: prompts (a
// template a client offers people as a command, whose arguments they fill in) and
// resources (content a client reads by URI or URI template). A file of a tool
// directory may define one instead of a tool: a loader hands the engine a Prompt
// (NewPrompt) or a Resource (NewResource) as ToolDef.Feature (with the Lua loader, a
// table with kind = "prompt" or kind = "resource"). The engine loads, checks and
// reloads them with the tools, within their own names (a prompt's name, a
// resource's URI or URI template): two files of a directory declaring one are both
// left out, and a later directory overrides an earlier one.
//
// Prompts and Resources list those of a registry snapshot; GetPrompt checks the
// arguments and renders a prompt, ReadResource reads the resource of a URI or of the
// first template that matches it. Their code only computes: host functions that read
// or touch the world refuse, since no permission check guards what a client asks of
// them, and they see no principal's session (engine.Engine.FeatureContext). Package
// engine/mcpserver serves them to MCP clients.
package feature

import (
	"slices"
	"strings"

	"github.com/luatool/luatool/engine"
)

// The kinds of feature, as engine.Feature.Kind names them.
const (
	kindPrompt   = "prompt"
	kindResource = "resource"
)

// The kinds of engine.Event that report a change of a prompt (named by Event.Name)
// or of a resource (whose URI or URI template is Event.Name), as ToolAdded,
// ToolUpdated and ToolRemoved report those of a tool.
const (
	PromptAdded     engine.EventKind = kindPrompt + " added"
	PromptUpdated   engine.EventKind = kindPrompt + " updated"
	PromptRemoved   engine.EventKind = kindPrompt + " removed"
	ResourceAdded   engine.EventKind = kindResource + " added"
	ResourceUpdated engine.EventKind = kindResource + " updated"
	ResourceRemoved engine.EventKind = kindResource + " removed"
)

// Prompts returns the prompts of reg, in name order.
func Prompts(reg *engine.Registry) []*Prompt {
	fs := reg.Features(kindPrompt)
	out := make([]*Prompt, len(fs))
	for i, f := range fs {
		out[i] = f.(*Prompt)
	}
	return out
}

// Resources returns the resources of reg: those of one URI in URI order, then the
// URI templates in template order.
func Resources(reg *engine.Registry) []*Resource {
	fs := reg.Features(kindResource)
	out := make([]*Resource, len(fs))
	for i, f := range fs {
		out[i] = f.(*Resource)
	}
	return slices.SortedStableFunc(slices.Values(out), func(a, b *Resource) int {
		switch {
		case a.IsTemplate() == b.IsTemplate():
			return strings.Compare(a.URI(), b.URI())
		case a.IsTemplate():
			return 1
		}
		return -1
	})
}
