package feature

import (
	"fmt"
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
	// ResourceChanged reports that the content at a URI (Event.Name, which a
	// template may serve) changed by a call's doing (ReportChange); the resource's
	// definition is the same.
	ResourceChanged engine.EventKind = kindResource + " changed"
)

// ReportChange tells the engine's subscribers, from the code of a call (cc), that
// the content at uri has changed (a tool wrote what a resource serves): an
// engine.Event of kind ResourceChanged named uri, which package engine/mcpserver
// sends as notifications/resources/updated to the clients subscribed to uri. A URI
// no resource of cc's snapshot serves is an error wrapping ErrUnknownResource, with
// the closest URI, and nobody is told.
func ReportChange(cc *engine.CallContext, uri string) error {
	reg := cc.Registry()
	if reg == nil { // code outside any call
		return fmt.Errorf("%w: %s", ErrUnknownResource, uri)
	}
	if _, err := FindResource(reg, uri); err != nil {
		return err
	}
	cc.FeatureChanged(kindResource, uri)
	return nil
}

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
