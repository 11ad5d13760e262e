package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/client"
	"github.com/luatool/luatool/engine/rules"
)

// Permission asks reach the user through the client as a form (an elicitation),
// put the way every ask of the call is (asks.go): over the session while the call
// waits, or for a client of 2026-07-28 or later in rounds. An answer that is not
// a clear allow (declined, cancelled, failed, or malformed) is a deny, whose text
// says why.

// errInputRequired ends a round of a call at its first unanswered ask.
var errInputRequired = errors.New("waiting for the user's answer through the client")

// asksState prefixes the requestState of a call's rounds.
const asksState = "luatool-asks:"

// rounds are the asks of one call of a client that takes them in rounds (SEP-2322):
// the answers of earlier rounds (carried by the client in requestState, bound to
// the call's tool and arguments) and of this one (inputResponses), each by what
// was asked and how many times the same was asked before it in the call
// ("ask-DIGEST-1", see askKey). The call runs again from the start
// each round (its validation and permission checks have no side effects, and a
// tool that asks does so before it acts): each ask in turn gets its recorded
// answer, and the first without one ends the round. No server-side state is
// kept between rounds. The state holds nothing secret and needs no signature: the
// client that could forge an answer is the one asking its user anyway.
type rounds struct {
	params *mcp.CallToolParamsRaw
	stop   context.CancelCauseFunc

	mu      sync.Mutex
	answers mcp.InputResponseMap
	times   map[string]int // how often each request was asked in this round, by digest
	pending mcp.InputRequestMap
}

// newRounds reads a call's answers so far; stop ends the call when it asks what is
// not answered yet. Answers given for another call (another tool or input) are
// not used.
func newRounds(p *mcp.CallToolParamsRaw, stop context.CancelCauseFunc) *rounds {
	r := &rounds{params: p, stop: stop, answers: mcp.InputResponseMap{}, times: map[string]int{}}
	if p.RequestState == "" { // a first round: nothing to bind
		return r
	}
	earlier, ok := strings.CutPrefix(p.RequestState, asksState+callBinding(p)+":")
	if !ok {
		return r
	}
	if b, err := base64.RawURLEncoding.DecodeString(earlier); err == nil {
		_ = json.Unmarshal(b, &r.answers)
	}
	for k, v := range p.InputResponses {
		r.answers[k] = v
	}
	return r
}

// decodableAnswers returns the params of a tools/call with every inputResponses
// entry go-sdk can decode kept, and each other one replaced by an elicitation
// answer whose action says why it was not taken. The SDK decodes the params before
// any handler runs, and an answer it cannot decode (content that is a string, an
// entry with no action or role) would fail the whole call as invalid params; so
// replaced, it reaches its ask as malformed, and a permission ask as a deny. A
// params without answers is returned as it is, unparsed.
func decodableAnswers(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"inputResponses"`)) {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p["inputResponses"] == nil {
		return params
	}
	var answers map[string]json.RawMessage
	if err := json.Unmarshal(p["inputResponses"], &answers); err != nil {
		delete(p, "inputResponses") // no answers at all: the call asks again
	} else {
		changed := false
		for key, answer := range answers {
			one, _ := json.Marshal(map[string]json.RawMessage{key: answer})
			var m mcp.InputResponseMap
			if err := json.Unmarshal(one, &m); err != nil {
				answers[key], _ = json.Marshal(map[string]string{"action": "undecodable: " + err.Error()})
				changed = true
			}
		}
		if !changed {
			return params
		}
		p["inputResponses"], _ = json.Marshal(answers)
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// decodableAnswersBody is decodableAnswers for the body of an HTTP POST holding one
// tools/call request; any other body is returned as it is.
func decodableAnswersBody(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"inputResponses"`)) {
		return body
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil || string(msg["method"]) != `"tools/call"` || msg["params"] == nil {
		return body
	}
	params := decodableAnswers(msg["params"])
	if bytes.Equal(params, msg["params"]) {
		return body
	}
	msg["params"] = params
	out, err := json.Marshal(msg)
	if err != nil {
		return body
	}
	return out
}

// callBinding names a call by its tool and arguments.
func callBinding(p *mcp.CallToolParamsRaw) string {
	h := sha256.New()
	h.Write([]byte(p.Name))
	h.Write([]byte{0})
	h.Write(p.Arguments)
	return hex.EncodeToString(h.Sum(nil))
}

func (r *rounds) ask(_ context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := r.askKey(req)
	if a, ok := r.answers[key]; ok {
		return a, nil
	}
	if r.pending == nil {
		r.pending = mcp.InputRequestMap{key: req}
		r.stop(errInputRequired)
	}
	return nil, errInputRequired
}

// askKey names an ask by a digest of the request and its count among the same
// requests of the call: an answer is used only for the question it answers, so
// that asks appearing or vanishing between rounds (a permission ask an "allow
// always" rule now skips) never hand one ask's answer to another; r.mu is held.
func (r *rounds) askKey(req mcp.InputRequest) string {
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:8])
	r.times[digest]++
	return fmt.Sprintf("ask-%s-%d", digest, r.times[digest])
}

// asked returns the result that ends the round, or nil when the call asked
// nothing it had no answer for.
func (r *rounds) asked() *mcp.CallToolResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		return nil
	}
	b, _ := json.Marshal(r.answers)
	return &mcp.CallToolResult{InputRequests: r.pending,
		RequestState: asksState + callBinding(r.params) + ":" + base64.RawURLEncoding.EncodeToString(b)}
}

// permissionAsk returns the CanUseTool hook of a call whose client can be asked:
// the form (what the call is, as the tool renders it, why it needs approval, what
// it does) put to the user through c, and the user's answer.
//
// offerAlways says whether "allow always" may be chosen: its rules last for the
// engine's life, for every client of the server, which is right only when the server
// has one client.
func permissionAsk(c *callClient, offerAlways bool) engine.CanUseToolFunc {
	return func(ctx context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		if !offerAlways {
			req.Suggestions = nil // an "always" sent anyway keeps nothing
		}
		form := permissionForm(ctx, &req)
		answer, err := c.Elicit(ctx, form)
		if errors.Is(err, errInputRequired) {
			return engine.PermissionDecision{}, err
		}
		if err == nil {
			if len(req.Suggestions) == 0 {
				delete(answer.Content, "always") // not offered: an "always" sent anyway keeps nothing
			}
			err = client.CheckResult(form, answer)
		}
		if err != nil {
			return engine.PermissionDecision{Behavior: rules.Deny,
				Message: "The user's approval could not be asked: " + err.Error()}, nil
		}
		return decision(answer, req), nil
	}
}

// permissionForm is the form that asks the user about a call.
func permissionForm(ctx context.Context, req *engine.PermissionRequest) *client.ElicitRequest {
	props := map[string]any{
		"allow": map[string]any{"type": "boolean", "title": "Allow this call"},
		"reason": map[string]any{"type": "string", "title": "Reason, told to the model when you refuse",
			"default": ""},
	}
	if len(req.Suggestions) > 0 {
		props["always"] = map[string]any{"type": "boolean", "default": false,
			"title": "Allow calls like this for the rest of the session: " + strings.Join(req.Suggestions, ", ")}
	}
	msg := req.Tool.RenderToolUse(ctx, req.Input)
	if req.Message != "" {
		msg += "\n" + req.Message
	}
	msg += fmt.Sprintf("\nAllow %s?", req.Description)
	return &client.ElicitRequest{Mode: "form", Message: msg,
		RequestedSchema: map[string]any{"type": "object", "properties": props, "required": []any{"allow"}}}
}

// decision reads the user's answer, checked against the form: allow (once, or
// with the suggested rules for the rest of the session) or deny, with the reason
// for the model. Declining or cancelling the form is a deny.
func decision(answer *client.ElicitResult, req engine.PermissionRequest) engine.PermissionDecision {
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
