package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine/feature"
)

// Prompts and resources: those of the engine's snapshot (feature.Prompts,
// feature.Resources), listed by every view alike (they belong to the tool
// directories, not to a principal, and their code sees no session: nothing of one
// principal reaches another) and synced with the tools, so that a reload that changes
// them sends notifications/prompts/list_changed or
// notifications/resources/list_changed. prompts/get and resources/read go to
// feature.GetPrompt and feature.ReadResource: an unknown prompt or bad arguments are
// invalid params (-32602), an unknown resource is the SDK's resource-not-found error,
// and a failing get or read an internal error (-32603) with the engine's message;
// each ends its request only. completion/complete goes to feature.CompletePrompt
// (ref/prompt) and feature.CompleteResource (ref/resource, by URI template): an
// unknown prompt, template or argument is invalid params, as MCP specifies, with the
// closest name; a completion function that fails or answers something other than a
// list of strings is logged and answered with no values, since a client asks as a
// person types and an error would only interrupt them. Resource subscriptions are in
// subscribe.go.

// syncFeatures brings the view's prompts and resources in line with the engine's
// current snapshot, with syncMu held.
func (s *Server) syncFeatures(v *view) {
	reg := s.eng.Registry()
	var prompts, resources, templates []listing
	for _, p := range feature.Prompts(reg) {
		mp := mcpPrompt(p)
		prompts = append(prompts, listing{p.Name(), mp, func() { v.srv.AddPrompt(mp, s.getPrompt) }})
	}
	for _, r := range feature.Resources(reg) {
		if r.IsTemplate() {
			t := &mcp.ResourceTemplate{URITemplate: r.URI(), Name: r.Name(), Description: r.Description(), MIMEType: r.MIMEType()}
			templates = append(templates, listing{r.URI(), t, func() { v.srv.AddResourceTemplate(t, s.readResource) }})
		} else {
			res := &mcp.Resource{URI: r.URI(), Name: r.Name(), Description: r.Description(), MIMEType: r.MIMEType()}
			resources = append(resources, listing{r.URI(), res, func() { v.srv.AddResource(res, s.readResource) }})
		}
	}
	var added, removed []string
	for _, l := range []struct {
		kind   string
		listed map[string][]byte
		now    []listing
		remove func(...string)
	}{
		{"prompt", v.prompts, prompts, v.srv.RemovePrompts},
		{"resource", v.resources, resources, v.srv.RemoveResources},
		{"resource template", v.templates, templates, v.srv.RemoveResourceTemplates},
	} {
		a, r := s.syncList(l.kind, l.listed, l.now, l.remove)
		added, removed = append(added, a...), append(removed, r...)
	}
	if v.profile == nil && len(added)+len(removed) > 0 {
		s.log.Info("prompts and resources", "added or changed", added, "removed", removed)
	}
}

// A listing is a prompt, resource or resource template as a view lists it: its key
// (name, URI or URI template), its MCP definition and how to register it.
type listing struct {
	key string
	def any
	add func()
}

// syncList syncs one list of a view: it registers the features whose definitions
// are new or changed and, with remove, unregisters the listed keys that are gone.
// It returns what it added (or changed) and removed, for the log.
func (s *Server) syncList(kind string, listed map[string][]byte, now []listing, remove func(...string)) (added, removed []string) {
	keep := map[string]bool{}
	for _, f := range now {
		keep[f.key] = true
		enc, err := json.Marshal(f.def)
		if err != nil {
			s.log.Error(kind+" definition", kind, f.key, "error", err)
			continue
		}
		if old, ok := listed[f.key]; ok && string(old) == string(enc) {
			continue
		}
		if s.guard(kind, f.key, f.add) {
			listed[f.key] = enc
			added = append(added, kind+" "+f.key)
		}
	}
	var gone []string
	for key := range listed {
		if !keep[key] {
			gone = append(gone, key)
			delete(listed, key)
		}
	}
	if len(gone) > 0 {
		sort.Strings(gone)
		remove(gone...)
		for _, key := range gone {
			removed = append(removed, kind+" "+key)
		}
	}
	return added, removed
}

// guard runs add, which registers something with the SDK, reporting false (and
// logging) if the SDK refuses it with a panic: the engine's checks should make that
// impossible, but one definition must not take the server down.
func (s *Server) guard(kind, name string, add func()) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error(kind+" refused by the MCP SDK", kind, name, "error", p)
			ok = false
		}
	}()
	add()
	return true
}

// mcpPrompt is a prompt's MCP definition.
func mcpPrompt(p *feature.Prompt) *mcp.Prompt {
	mp := &mcp.Prompt{Name: p.Name(), Description: p.Description()}
	for _, a := range p.Arguments() {
		mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return mp
}

// getPrompt serves prompts/get.
func (s *Server) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	start := time.Now()
	r, err := feature.GetPrompt(ctx, s.eng, req.Params.Name, req.Params.Arguments)
	if err != nil {
		s.log.Warn("prompt", "prompt", req.Params.Name, "duration", time.Since(start), "error", err)
		if errors.Is(err, feature.ErrUnknownPrompt) || errors.Is(err, feature.ErrPromptArguments) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	s.log.Info("prompt", "prompt", req.Params.Name, "duration", time.Since(start))
	out := &mcp.GetPromptResult{Description: r.Description}
	for _, m := range r.Messages {
		out.Messages = append(out.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: content(m.Content)})
	}
	return out, nil
}

// readResource serves resources/read.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	start := time.Now()
	uri := req.Params.URI
	c, err := feature.ReadResource(ctx, s.eng, uri)
	if err != nil {
		s.log.Warn("resource", "uri", uri, "duration", time.Since(start), "error", err)
		if errors.Is(err, feature.ErrUnknownResource) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	s.log.Info("resource", "uri", uri, "duration", time.Since(start))
	rc := &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
}

// complete serves completion/complete.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var args map[string]string
	if p.Context != nil {
		args = p.Context.Arguments
	}
	var c *feature.Completions
	var err error
	ref := p.Ref.Name
	switch p.Ref.Type {
	case "ref/prompt":
		c, err = feature.CompletePrompt(ctx, s.eng, p.Ref.Name, p.Argument.Name, p.Argument.Value, args)
	case "ref/resource":
		ref = p.Ref.URI
		c, err = feature.CompleteResource(ctx, s.eng, p.Ref.URI, p.Argument.Name, p.Argument.Value, args)
	default: // the SDK refuses other types as it decodes them
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "ref.type must be ref/prompt or ref/resource, not " + p.Ref.Type}
	}
	switch {
	case errors.Is(err, feature.ErrUnknownPrompt), errors.Is(err, feature.ErrUnknownResource), errors.Is(err, feature.ErrUnknownArgument):
		s.log.Warn("completion", "ref", ref, "argument", p.Argument.Name, "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	case err != nil:
		s.log.Error("completion", "ref", ref, "argument", p.Argument.Name, "error", err)
		c = &feature.Completions{Values: []string{}}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: c.Values, Total: c.Total, HasMore: c.HasMore}}, nil
}
