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
