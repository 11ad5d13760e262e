package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
)

// Permission asks reach the user through the client with multi round-trip requests
// (SEP-2322): the first round of a call that needs approval ends with an
// elicitation request instead of a result; the client asks its user and calls again
// with the answer, and the second round runs the pipeline again (validation and
// permission checks have no side effects) with the answer ready. The SDK plays the
// client's part itself for clients of protocols before 2026-07-28, with a classic
// elicitation/create request. No server-side state is kept between the rounds.

// permissionInput is the key of the permission elicitation in InputRequests.
const permissionInput = "permission"

// errInputRequired ends the first round of a call at its ask.
var errInputRequired = errors.New("waiting for the user's answer through the client")

// canElicit reports whether the client of a session accepts form elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // neither set means form
}

// requestState binds an answer to the call it was asked for: the client echoes it
// with the answer, and an answer given for another tool or input is not used. It
// holds nothing secret, and needs no signature: the client that could forge an
// answer is the one asking its user anyway.
func requestState(p *mcp.CallToolParamsRaw) string {
	h := sha256.New()
	h.Write([]byte(p.Name))
	h.Write([]byte{0})
	h.Write(p.Arguments)
	return "luatool-permission:" + hex.EncodeToString(h.Sum(nil))
}

// permissionRound returns the CanUseTool hook of a call from a client that can be
// asked: the answer from the client when this is the second round of the call,
// otherwise a hook that records the ask in pending and ends the round.
//
// offerAlways says whether "allow always" may be chosen: its rules last for the
// engine's life, for every client of the server, which is right only when the server
// has one client.
func permissionRound(p *mcp.CallToolParamsRaw, pending **engine.PermissionRequest, offerAlways bool) engine.CanUseToolFunc {
	if answer, ok := p.InputResponses[permissionInput].(*mcp.ElicitResult); ok && p.RequestState == requestState(p) {
		return func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
			if !offerAlways {
				req.Suggestions = nil // an "always" sent anyway keeps nothing
			}
			return decision(answer, req), nil
		}
	}
	return func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		*pending = &req
		return engine.PermissionDecision{}, errInputRequired
	}
}

// inputRequired is the end of a first round: the form that asks the user, saying
// what the call is (as the tool renders it), why it needs approval, and what it does.
func inputRequired(ctx context.Context, p *mcp.CallToolParamsRaw, req *engine.PermissionRequest, offerAlways bool) *mcp.CallToolResult {
	props := map[string]any{
		"allow": map[string]any{"type": "boolean", "title": "Allow this call"},
		"reason": map[string]any{"type": "string", "title": "Reason, told to the model when you refuse",
			"default": ""},
	}
	if offerAlways && len(req.Suggestions) > 0 {
		props["always"] = map[string]any{"type": "boolean", "default": false,
			"title": "Allow calls like this for the rest of the session: " + strings.Join(req.Suggestions, ", ")}
	}
	msg := req.Tool.RenderToolUse(ctx, req.Input)
	if req.Message != "" {
		msg += "\n" + req.Message
	}
	msg += fmt.Sprintf("\nAllow %s?", req.Description)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{permissionInput: &mcp.ElicitParams{
			Message:         msg,
			RequestedSchema: map[string]any{"type": "object", "properties": props, "required": []any{"allow"}},
		}},
		RequestState: requestState(p),
	}
}

// decision reads the user's answer: allow (once, or with the suggested rules for
// the rest of the session) or deny, with the reason for the model. Declining or
// cancelling the form is a deny.
func decision(answer *mcp.ElicitResult, req engine.PermissionRequest) engine.PermissionDecision {
	if answer.Action != "accept" {
		return engine.PermissionDecision{Behavior: rules.Deny}
	}
	reason, _ := answer.Content["reason"].(string)
	if allow, _ := answer.Content["allow"].(bool); !allow {
		return engine.PermissionDecision{Behavior: rules.Deny, Message: strings.TrimSpace(reason)}
	}
	d := engine.PermissionDecision{Behavior: rules.Allow}
	if always, _ := answer.Content["always"].(bool); always {
		d.AddRules = req.Suggestions
	}
	return d
}
