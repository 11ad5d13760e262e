package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine/client"
)

// What a call asks of its client (a tool's ctx:log, ctx:sample, ctx:elicit, and
// luatool's own permission asks, elicit.go) goes to the client that made the call,
// the way its protocol allows:
//
//   - log messages as notifications/message on the call's stream, at or above the
//     level the client set (logging/setLevel: the session's, or over stateless HTTP,
//     where each POST stands alone, the last one its principal set; see levels);
//   - over a session that takes server requests (stdio, HTTP with sessions) from a
//     client before 2026-07-28: elicitation/create and sampling/createMessage
//     requests, while the call waits (liveAsker);
//   - from a client of 2026-07-28 or later, which forbids server requests: in
//     rounds (SEP-2322, rounds.go): the call's first round ends with the ask, the
//     client calls again with the answer, and the call runs again from the start
//     with its asks answered in order;
//   - over stateless HTTP from an older client, nothing can be asked: no session
//     routes the client's answer back. Asks are unavailable, saying why.
//
// Whatever the way, the request is checked before it is sent and the answer before
// the tool sees it (package client): a malformed answer is an error the tool
// handles, never a failed tools/call.

// An asker puts one request to a call's client and returns its answer: an
// *mcp.ElicitResult for an *mcp.ElicitParams, an *mcp.CreateMessageWithToolsResult
// for an *mcp.CreateMessageParams.
type asker interface {
	ask(ctx context.Context, r mcp.InputRequest) (mcp.InputResponse, error)
}

// codeUserRejected is the error code MCP's examples give a client whose user
// rejected a sampling request.
const codeUserRejected = -1

// liveAsker asks over a session that takes server requests.
type liveAsker struct{ ss *mcp.ServerSession }

func (a liveAsker) ask(ctx context.Context, r mcp.InputRequest) (mcp.InputResponse, error) {
	var res mcp.InputResponse
	var err error
	switch p := r.(type) {
	case *mcp.ElicitParams:
		res, err = a.ss.Elicit(ctx, p)
	case *mcp.CreateMessageParams:
		res, err = a.ss.CreateMessage(ctx, p)
	default:
		return nil, fmt.Errorf("cannot ask %T", r)
	}
	if err == nil {
		return res, nil
	}
	// The client's own error (its user refused, or it failed) and a call that
	// ended fail the ask; anything else is an answer the SDK could not take as
	// one: content that breaks the form, a content it cannot decode.
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == codeUserRejected {
		return nil, fmt.Errorf("%w: %s", client.ErrDeclined, rpcErr.Message)
	}
	if ctx.Err() != nil || errors.As(err, &rpcErr) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil, err
	}
	return nil, client.Malformed("%v", err)
}

// callClient is the client.Client of one tools/call.
type callClient struct {
	s    *Server
	req  *mcp.CallToolRequest
	tool string
	// asks puts the call's requests; nil when nothing can be asked, and why says
	// why.
	asks asker
	why  string
	// notify sends a notification on the call's stream where there is no session
	// (HTTP calls served directly, directhttp.go); level is then the level the
	// principal set.
	notify func(method string, params any)
	level  client.Level
}

// newCallClient returns the client of a call: it asks in rounds when the client's
// protocol forbids server requests, over the session when it has one, and nothing
// otherwise.
func (s *Server) newCallClient(req *mcp.CallToolRequest, r *rounds) *callClient {
	c := &callClient{s: s, req: req, tool: req.Params.Name}
	switch {
	case r != nil:
		c.asks = r
	case sessionless(req.Session):
		c.why = "this call came in no session, so its client (of a protocol before 2026-07-28) cannot be asked anything: a server started with sessions (--sessions) asks a client that opens one"
	default:
		c.asks = liveAsker{req.Session}
	}
	return c
}

// sessionless reports whether a call came without a session that could carry a
// server request: over stateless HTTP the SDK makes a session for the one POST,
// initialized by nobody.
func sessionless(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	p := ss.InitializeParams()
	return ss.ID() == "" && (p == nil || p.Capabilities == nil)
}

// newProtocol reports whether a call's client speaks 2026-07-28 or later, whose
// calls take their asks in rounds.
func newProtocol(req *mcp.CallToolRequest) bool {
	if _, ok := req.Params.Meta[mcp.MetaKeyProtocolVersion]; ok {
		return true
	}
	if req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= statelessProtocol
}

// Log sends m to the client when it wants messages of m's level.
func (c *callClient) Log(ctx context.Context, m client.LogMessage) {
	p := &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(m.Level), Logger: c.tool, Data: m.Data}
	if c.req.Session == nil {
		if c.notify != nil && m.Level.AtLeast(c.level) {
			c.notify("notifications/message", p)
		}
		return
	}
	if err := c.req.Session.Log(ctx, p); err != nil {
		c.s.log.Debug("log notification", "error", err)
	}
}

// Elicit asks the client's user, if the client offers the mode asked for.
func (c *callClient) Elicit(ctx context.Context, r *client.ElicitRequest) (*client.ElicitResult, error) {
	o := c.offers()
	if err := c.can(o.formElicit && !r.URLMode() || o.urlElicit && r.URLMode(), "elicitation ("+r.Mode+" mode)"); err != nil {
		return nil, err
	}
	p := &mcp.ElicitParams{Mode: r.Mode, Message: r.Message, URL: r.URL, ElicitationID: r.ElicitationID}
	if r.RequestedSchema != nil {
		p.RequestedSchema = r.RequestedSchema
	}
	res, err := c.asks.ask(ctx, p)
	if err != nil {
		return nil, err
	}
	er, ok := res.(*mcp.ElicitResult)
	if !ok {
		return nil, client.Malformed("the client answered an elicitation with %T", res)
	}
	return &client.ElicitResult{Action: er.Action, Content: er.Content}, nil
}

// Sample asks the client's model, if the client offers sampling.
func (c *callClient) Sample(ctx context.Context, r *client.SamplingRequest) (*client.SamplingResult, error) {
	if err := c.can(c.offers().sampling, "sampling"); err != nil {
		return nil, err
	}
	var p mcp.CreateMessageParams
	if err := roundTrip(r, &p); err != nil {
		return nil, err
	}
	res, err := c.asks.ask(ctx, &p)
	if err != nil {
		return nil, err
	}
	var out client.SamplingResult
	switch m := res.(type) {
	case *mcp.CreateMessageResult:
		out.Role, out.Model, out.StopReason = string(m.Role), m.Model, m.StopReason
		err = roundTrip(m.Content, &out.Content)
	case *mcp.CreateMessageWithToolsResult:
		if len(m.Content) != 1 {
			return nil, client.Malformed("the model answered %d content blocks, not one", len(m.Content))
		}
		out.Role, out.Model, out.StopReason = string(m.Role), m.Model, m.StopReason
		err = roundTrip(m.Content[0], &out.Content)
	default:
		return nil, client.Malformed("the client answered a sampling request with %T", res)
	}
	if err != nil {
		return nil, client.Malformed("the model's content: %v", err)
	}
	return &out, nil
}

// can reports why the client cannot be asked for feature, or nil.
func (c *callClient) can(offered bool, feature string) error {
	switch {
	case c.asks == nil:
		return client.Unavailable(c.why)
	case !offered:
		return client.Unavailable("the client does not offer " + feature)
	}
	return nil
}

// offered is what a client takes: forms, URL elicitations, sampling requests.
type offered struct{ formElicit, urlElicit, sampling bool }

// offers reads what the call's client takes, from the call's _meta (2026-07-28
// and later), where the SDK has decoded it already (its ClientCapabilities decodes
// it again, at a cost every call would pay), or from the session's initialize. A
// client declaring elicitation without modes takes forms.
func (c *callClient) offers() offered {
	var elicit, sampling bool
	var form, url bool
	if m, ok := c.req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
		e, isMap := m["elicitation"].(map[string]any)
		elicit, sampling = isMap, m["sampling"] != nil
		form, url = e["form"] != nil, e["url"] != nil
	} else if c.req.Session != nil {
		if p := c.req.Session.InitializeParams(); p != nil && p.Capabilities != nil {
			caps := p.Capabilities
			elicit, sampling = caps.Elicitation != nil, caps.Sampling != nil
			if elicit {
				form, url = caps.Elicitation.Form != nil, caps.Elicitation.URL != nil
			}
		}
	}
	return offered{formElicit: elicit && (form || !url), urlElicit: elicit && url, sampling: sampling}
}

// roundTrip converts a value to another type of the same JSON shape.
func roundTrip(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// directNotifier writes a direct HTTP call's notifications as events of its
// stream, before its answer (directhttp.go).
type directNotifier struct {
	mu    sync.Mutex
	write func(data []byte)
}

func (n *directNotifier) notify(method string, params any) {
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.write(data)
}

type notifierKey struct{}

// withNotifier returns a context whose direct call sends its notifications with n.
func withNotifier(ctx context.Context, n *directNotifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, n)
}

// notifierOf returns how a direct call sends notifications, or nil.
func notifierOf(ctx context.Context) func(method string, params any) {
	if n, ok := ctx.Value(notifierKey{}).(*directNotifier); ok {
		return n.notify
	}
	return nil
}
