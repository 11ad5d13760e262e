package client

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
)

// A SamplingRequest asks the client's model for a message (MCP's
// sampling/createMessage), in MCP's field names.
type SamplingRequest struct {
	Messages         []Message         `json:"messages"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers".
	IncludeContext string         `json:"includeContext,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
}

// A Message is one message of a conversation: its role ("user" or "assistant")
// and its content.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Content is one text, image or audio block. Data is base64, as MCP sends it.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

// ModelPreferences say which model the server would like: hints by name, and
// priorities between 0 and 1.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// A ModelHint names a model, or a part of a model's name.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// A SamplingResult is the model's message: its role, content, the model that
// wrote it and why it stopped ("endTurn", "stopSequence", "maxTokens" or the
// client's own reason).
type SamplingResult struct {
	Role       string  `json:"role"`
	Content    Content `json:"content"`
	Model      string  `json:"model"`
	StopReason string  `json:"stopReason,omitempty"`
}

// DecodeSamplingRequest reads a request from a JSON value (a tool's table),
// refusing unknown fields, and checks it.
func DecodeSamplingRequest(v any) (*SamplingRequest, error) {
	var r SamplingRequest
	if err := decodeStrict(v, &r); err != nil {
		return nil, Malformed("sampling request: %v", err)
	}
	return &r, r.Check()
}

// Check reports what makes r a request MCP does not allow.
func (r *SamplingRequest) Check() error {
	if len(r.Messages) == 0 {
		return Malformed("sampling request: messages: at least one message is needed")
	}
	for i, m := range r.Messages {
		if err := m.check(); err != nil {
			return Malformed("sampling request: messages[%d]: %v", i+1, err)
		}
	}
	if r.MaxTokens <= 0 {
		return Malformed("sampling request: maxTokens must be a positive integer, got %d", r.MaxTokens)
	}
	if r.IncludeContext != "" && !slices.Contains([]string{"none", "thisServer", "allServers"}, r.IncludeContext) {
		return Malformed(`sampling request: includeContext must be "none", "thisServer" or "allServers", got %q`, r.IncludeContext)
	}
	if p := r.ModelPreferences; p != nil {
		for name, f := range map[string]*float64{"costPriority": p.CostPriority, "speedPriority": p.SpeedPriority, "intelligencePriority": p.IntelligencePriority} {
			if f != nil && (*f < 0 || *f > 1) {
				return Malformed("sampling request: modelPreferences.%s must be between 0 and 1, got %v", name, *f)
			}
		}
	}
	return nil
}

// Check reports what makes r an answer MCP does not allow.
func (r *SamplingResult) Check() error {
	if r.Model == "" {
		return Malformed("sampling result: model is missing")
	}
	m := Message{Role: r.Role, Content: r.Content}
	if err := m.check(); err != nil {
		return Malformed("sampling result: %v", err)
	}
	return nil
}

func (m Message) check() error {
	if m.Role != "user" && m.Role != "assistant" {
		return fmt.Errorf(`role must be "user" or "assistant", got %q`, m.Role)
	}
	c := m.Content
	switch c.Type {
	case "text":
		if c.Data != "" || c.MIMEType != "" {
			return fmt.Errorf("a text content has text only")
		}
	case "image", "audio":
		if c.MIMEType == "" {
			return fmt.Errorf("an %s content needs a mimeType", c.Type)
		}
		if _, err := base64.StdEncoding.DecodeString(c.Data); err != nil || c.Data == "" {
			return fmt.Errorf("an %s content needs data in base64", c.Type)
		}
	default:
		return fmt.Errorf(`content type must be "text", "image" or "audio", got %q`, c.Type)
	}
	return nil
}

// decodeStrict decodes a JSON value into out, refusing unknown fields. An empty
// object stands for an empty list: Lua writes both as {}.
func decodeStrict(v any, out any) error {
	b, err := json.Marshal(emptyToNil(v))
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(out)
}

// emptyToNil is v with its empty objects, below the top, left out.
func emptyToNil(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if m, ok := e.(map[string]any); ok && len(m) == 0 {
				continue
			}
			out[k] = emptyToNil(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = emptyToNil(e)
		}
		return out
	}
	return v
}

// JSON returns v (a request or result of this package) as a JSON value: maps,
// lists, strings, float64s and booleans.
func JSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the types of this package always encode
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
