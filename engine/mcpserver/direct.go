package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk v1.8.0 decodes JSON with a decoder made for every value
// (internal/json.Unmarshal), and each one's first read allocates a 32 KiB buffer,
// whatever the size of the value. A tools/call served by the SDK is decoded so twice
// (its _meta, looking for the stateless protocol, then its params), which is 90% of
// the bytes a call allocates over stdio, and the garbage collection they cause is
// most of what a trivial call costs. So ServeStdio serves tools/call itself where it
// can tell the SDK would do nothing more than call the tool's handler: the params
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
// the SDK, or false when the SDK must serve it. It must when:
//   - the session is not initialized (the SDK answers that error) or runs the
//     stateless protocol, or the request names a protocol in its _meta;
//   - the client can answer elicitations: a permission ask is then a round of the
//     SDK's, which asks the client and calls the handler again;
//   - the params are not exactly a listed tool's name, an object of arguments and
//     an object of _meta (the SDK answers an unknown tool, and its decoding of
//     anything else is its own).
func (s *Server) direct(ss *mcp.ServerSession, params json.RawMessage) (directCall, bool) {
	init := ss.InitializeParams()
	if init == nil || init.ProtocolVersion >= statelessProtocol || canElicit(ss) {
		return nil, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil {
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
	if !s.base.lists(p.Name) {
		return nil, false
	}
	req := &mcp.CallToolRequest{Session: ss, Params: p}
	return func(ctx context.Context) (json.RawMessage, error) {
		res, err := s.call(ctx, req)
		if err != nil {
			return nil, err
		}
		return encodeResult(res)
	}, true
}

// encodeResult encodes a result as the SDK does. The SDK's encoder (without HTML
// escapes) calls the result's MarshalJSON and compacts what it returns, which is
// compact already.
func encodeResult(res *mcp.CallToolResult) (json.RawMessage, error) {
	return res.MarshalJSON()
}
