package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the model reads of a result depends on the client. MCP lets a tool with an
// outputSchema answer with both structuredContent (its data) and content (text),
// and the engine sends the data and the tool's mapResult as those two. Most
// clients show the model the content. Claude Code shows the model the serialized
// structuredContent in place of the text content (it keeps images): the model
// would read the raw data, not the text the tool's author wrote for it, nor the
// engine's preview of a persisted result. So a client known to do that is listed
// the tools without outputSchema and sent results without structuredContent (MCP
// requires structuredContent only of a tool that declares an outputSchema): its
// model reads the mapped content, as in the engine's own loop. Every other client
// is listed the outputSchema and gets both.

// structuredDroppers are the clients, by the name of their clientInfo, that show
// the model a result's structuredContent in place of its text content.
var structuredDroppers = map[string]bool{
	"claude-code": true, // Claude Code 2.1.x
}

// clientName returns the name a client gave for itself: in its initialize request,
// or, where a request carries it (the stateless protocol of 2026-07-28), in the
// request's _meta. Empty when the client gave none.
func clientName(ss *mcp.ServerSession, params mcp.Params) string {
	if params != nil && !isNilParams(params) {
		if info, ok := params.GetMeta()[mcp.MetaKeyClientInfo].(map[string]any); ok {
			if name, ok := info["name"].(string); ok && name != "" {
				return name
			}
		}
	}
	if ss == nil {
		return ""
	}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		return p.ClientInfo.Name
	}
	return ""
}

// isNilParams reports whether params is a typed nil, which GetMeta would
// dereference.
func isNilParams(params mcp.Params) bool {
	switch p := params.(type) {
	case *mcp.CallToolParamsRaw:
		return p == nil
	case *mcp.ListToolsParams:
		return p == nil
	}
	return false
}

// wantsStructured reports whether results for this client carry structuredContent
// and its tool list the outputSchemas (see structuredDroppers).
func wantsStructured(ss *mcp.ServerSession, params mcp.Params) bool {
	return !structuredDroppers[clientName(ss, params)]
}

// listForClient lists the tools without outputSchema to a client that does not
// want structured results. The SDK's list holds the registered tools, which stay
// as they are: the client gets copies.
func listForClient(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || method != "tools/list" {
			return res, err
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if wantsStructured(ss, req.GetParams()) {
			return res, nil
		}
		out := *list
		out.Tools = make([]*mcp.Tool, len(list.Tools))
		for i, t := range list.Tools {
			c := *t
			c.OutputSchema = nil
			out.Tools[i] = &c
		}
		return &out, nil
	}
}
