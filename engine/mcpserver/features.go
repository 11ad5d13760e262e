package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
)

// Prompts and resources: the engine's Registry.Prompts and Registry.Resources,
// listed by every view alike (they belong to the tool directories, not to a
// principal, and their code sees no session: nothing of one principal reaches
// another) and synced with the tools, so that a reload that changes them sends
// notifications/prompts/list_changed or notifications/resources/list_changed.
// prompts/get and resources/read go to Engine.GetPrompt and Engine.ReadResource:
// an unknown prompt or bad arguments are invalid params (-32602), an unknown
// resource is the SDK's resource-not-found error, and a failing get or read an
// internal error (-32603) with the engine's message; each ends its request only.

// syncFeatures brings the view's prompts and resources in line with the engine's
// current snapshot, with syncMu held.
func (s *Server) syncFeatures(v *view) {
	reg := s.eng.Registry()
	keep := map[string]bool{}
	var added, removed []string
	for _, p := range reg.Prompts() {
		mp := mcpPrompt(p)
		keep[p.Name()] = true
		if s.changed(v.prompts, p.Name(), mp) && s.guard("prompt", p.Name(), func() { v.srv.AddPrompt(mp, s.getPrompt) }) {
			added = append(added, "prompt "+p.Name())
		}
	}
	var gone []string
	for name := range v.prompts {
		if !keep[name] {
			gone = append(gone, name)
			delete(v.prompts, name)
		}
	}
	if len(gone) > 0 {
		v.srv.RemovePrompts(gone...)
		for _, name := range gone {
			removed = append(removed, "prompt "+name)
		}
	}

	clear(keep)
	for _, r := range reg.Resources() {
		key := r.URI()
		keep[key] = true
		var def any
		var add func()
		if r.IsTemplate() {
			t := &mcp.ResourceTemplate{URITemplate: r.URI(), Name: r.Name(), Description: r.Description(), MIMEType: r.MIMEType()}
			def, add = t, func() { v.srv.AddResourceTemplate(t, s.readResource) }
		} else {
			res := &mcp.Resource{URI: r.URI(), Name: r.Name(), Description: r.Description(), MIMEType: r.MIMEType()}
			def, add = res, func() { v.srv.AddResource(res, s.readResource) }
		}
		if s.changed(v.resources, key, def) && s.guard("resource", key, add) {
			added = append(added, "resource "+key)
		}
	}
	for key, enc := range v.resources {
		if keep[key] {
			continue
		}
		delete(v.resources, key)
		removed = append(removed, "resource "+key)
		var probe struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(enc, &probe) == nil && probe.URITemplate != "" {
			v.srv.RemoveResourceTemplates(key)
		} else {
			v.srv.RemoveResources(key)
		}
	}
	if v.profile == nil && len(added)+len(removed) > 0 {
		s.log.Info("prompts and resources", "added or changed", added, "removed", removed)
	}
}

// changed reports whether def differs from what listed holds under key, and if so
// records it there.
func (s *Server) changed(listed map[string][]byte, key string, def any) bool {
	enc, err := json.Marshal(def)
	if err != nil {
		s.log.Error("definition", "name", key, "error", err)
		return false
	}
	if old, ok := listed[key]; ok && string(old) == string(enc) {
		return false
	}
	listed[key] = enc
	return true
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
func mcpPrompt(p *engine.Prompt) *mcp.Prompt {
	mp := &mcp.Prompt{Name: p.Name(), Description: p.Description()}
	for _, a := range p.Arguments() {
		mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return mp
}

// getPrompt serves prompts/get.
func (s *Server) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	start := time.Now()
	r, err := s.eng.GetPrompt(ctx, req.Params.Name, req.Params.Arguments)
	if err != nil {
		s.log.Warn("prompt", "prompt", req.Params.Name, "duration", time.Since(start), "error", err)
		if errors.Is(err, engine.ErrUnknownPrompt) || errors.Is(err, engine.ErrPromptArguments) {
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
	c, err := s.eng.ReadResource(ctx, uri)
	if err != nil {
		s.log.Warn("resource", "uri", uri, "duration", time.Since(start), "error", err)
		if errors.Is(err, engine.ErrUnknownResource) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	s.log.Info("resource", "uri", uri, "duration", time.Since(start))
	rc := &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
}
