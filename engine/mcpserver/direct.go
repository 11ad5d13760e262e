package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// The go-sdk v1.8.0 decodes JSON with a decoder made for every value
// (internal/json.Unmarshal), and each one's first read allocates a 32 KiB buffer,
// whatever the size of the value. A tools/call served by the SDK is decoded so twice
// (its _meta, looking for the stateless protocol, then its params), which is 90% of
// the bytes a call allocates over stdio, and the garbage collection they cause is
// most of what a trivial call costs. So ServeStdio serves tools/call itself where it
// can tell the SDK would do nothing more than call the tool's handler (and, for a
// permission ask, put it to the client and call the handler again): the params
// decoded once with encoding/json, the handler the SDK would have run (Server.call),
// the result encoded as the SDK encodes it. Every other request, and every
// tools/call that needs more of the SDK, goes to the SDK as before.
//
// Remove this once a go-sdk release decodes without a buffer per value (see
// "Upstream: go-sdk" in bench/README.md).

// A directCall serves one tools/call without the SDK, answering its result or an
// error, both in the SDK's form.
type directCall func(ctx context.Context) (json.RawMessage, error)

// statelessProtocol is the first protocol version whose requests can carry their
// own protocol version in _meta, and whose tool results carry a resultType: the
// SDK's part of such a call is more than calling the handler.
const statelessProtocol = "2026-07-28"

// direct returns how to serve a tools/call of the session ss with params without
// the SDK, or false when the SDK must serve it. It must when the session is not
// initialized (the SDK answers that error) or runs the stateless protocol, and when
// directParams refuses the params.
func (s *Server) direct(ss *mcp.ServerSession, params json.RawMessage) (directCall, bool) {
	init := ss.InitializeParams()
	if init == nil || init.ProtocolVersion >= statelessProtocol {
		return nil, false
	}
	p, ok := directParams(params)
	if !ok || !s.base.lists(p.Name) {
		return nil, false
	}
	return s.serveCall(&mcp.CallToolRequest{Session: ss, Params: p}), true
}

// directParams decodes the params of a tools/call that may be served without the
// SDK: exactly a name, an object of arguments and an object of _meta that names no
// protocol version (the SDK's decoding of anything else is its own). Whether the
// name is a listed tool is the caller's to check: the SDK answers an unknown one.
func directParams(params json.RawMessage) (*mcp.CallToolParamsRaw, bool) {
	members, ok := jsonvalue.Members(params)
	if !ok && json.Unmarshal(params, &members) != nil {
		return nil, false
	}
	p := &mcp.CallToolParamsRaw{}
	for k, v := range members {
		var err error
		switch k {
		case "name":
			err = json.Unmarshal(v, &p.Name)
		case "arguments":
			if v[0] != '{' {
				return nil, false
			}
			p.Arguments = v
		case "_meta":
			if v[0] != '{' {
				return nil, false
			}
			err = json.Unmarshal(v, &p.Meta)
		default:
			return nil, false
		}
		if err != nil {
			return nil, false
		}
	}
	if _, ok := p.Meta[mcp.MetaKeyProtocolVersion]; ok {
		return nil, false
	}
	return p, true
}

// serveCall serves req as the SDK's tools/call would, with the handler it would
// run (Server.call): the result encoded as the SDK encodes it, or its error. What
// the call asks of its client goes over req.Session while it runs; a call of a
// client that is asked in rounds (2026-07-28 and later) is never served here.
func (s *Server) serveCall(req *mcp.CallToolRequest) directCall {
	return func(ctx context.Context) (json.RawMessage, error) {
		res, err := s.call(ctx, req)
		if err != nil {
			return nil, err
		}
		if res.Content == nil {
			r := *res
			r.Content = []mcp.Content{} // as the SDK sends it: never null
			res = &r
		}
		return encodeResult(res)
	}
}

// encodeResult encodes a result as the SDK does. The SDK's encoder (without HTML
// escapes) calls the result's MarshalJSON and compacts what it returns, which is
// compact already.
func encodeResult(res *mcp.CallToolResult) (json.RawMessage, error) {
	return res.MarshalJSON()
}
