package luaload

import (
	"errors"
	"fmt"
	"math"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/content"
	"github.com/luatool/luatool/internal/spell"
)

// blockKeys are the fields a content block of each type may have, as a Lua tool
// writes it: MCP's shape, and for an image also the Anthropic API's (source).
var blockKeys = map[string][]string{
	"text":          {"type", "text", "annotations"},
	"image":         {"type", "data", "mimeType", "source", "annotations"},
	"audio":         {"type", "data", "mimeType", "annotations"},
	"resource":      {"type", "resource", "annotations"},
	"resource_link": {"type", "uri", "name", "title", "description", "mimeType", "size", "annotations"},
}

// contentBlockOf reads a content block a Lua tool wrote (converted to a JSON value)
// and checks it (engine.ContentBlock.Check): an error names the field, and
// blockError the block.
//
//	{type = "text", text = "..."}
//	{type = "image", data = BASE64, mimeType = "image/png"}   -- or source = {type = "base64", media_type =, data =}
//	{type = "audio", data = BASE64, mimeType = "audio/wav"}
//	{type = "resource", resource = {uri =, mimeType =, text = or blob = BASE64}}
//	{type = "resource_link", uri =, name =, title =, description =, mimeType =, size =}
//
// each with an optional annotations = {audience = {"user", "assistant"}, priority =
// 0..1, lastModified = ISO 8601}.
func contentBlockOf(v any) (engine.ContentBlock, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return engine.ContentBlock{}, fmt.Errorf("must be a table {type = ..., ...}, not %s", jsonKind(v))
	}
	typ, _ := m["type"].(string)
	if typ == "" {
		return engine.ContentBlock{}, errors.New("type is required: text, image, audio, resource or resource_link")
	}
	b := engine.ContentBlock{Type: typ}
	keys, known := blockKeys[typ]
	if !known {
		return b, b.Check() // names the type, with a hint
	}
	if err := onlyKeys(m, keys, ""); err != nil {
		return b, err
	}
	r := fieldReader{m: m}
	switch typ {
	case "text":
		b.Text = r.str("text", true)
	case "image", "audio":
		if src, ok := m["source"]; ok && typ == "image" {
			if _, mcpShape := m["data"]; mcpShape {
				return b, errors.New("give data and mimeType, or source, not both")
			}
			b.Source, _ = src.(map[string]any)
			if b.Source == nil {
				return b, fmt.Errorf("source must be a table {type = \"base64\", media_type =, data =}, not %s", jsonKind(src))
			}
			if err := onlyKeys(b.Source, []string{"type", "media_type", "data"}, "source."); err != nil {
				return b, err
			}
		} else {
			b.Source = map[string]any{"type": "base64", "data": r.str("data", true), "media_type": r.str("mimeType", true)}
		}
	case "resource":
		b.Resource, r.err = resourceOf(m["resource"])
	case "resource_link":
		b.Link = &content.Link{URI: r.str("uri", true), Name: r.str("name", true), Title: r.str("title", false),
			Description: r.str("description", false), MIMEType: r.str("mimeType", false)}
		if size, ok := m["size"]; ok {
			n, isNum := size.(float64)
			if !isNum || n != math.Trunc(n) || n < 0 || n > 1<<53 {
				r.fail(fmt.Errorf("size must be a whole number of bytes, not %v", size))
			}
			s := int64(n)
			b.Link.Size = &s
		}
	}
	if a, ok := m["annotations"]; ok && r.err == nil {
		b.Annotations, r.err = annotationsOf(a)
	}
	if r.err != nil {
		return b, r.err
	}
	return b, b.Check()
}

// resourceOf reads an embedded resource's contents: a uri, and text or blob.
func resourceOf(v any) (*content.Resource, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("resource must be a table {uri =, mimeType =, text = or blob =}, not %s", jsonKind(v))
	}
	if err := onlyKeys(m, []string{"uri", "mimeType", "text", "blob"}, "resource."); err != nil {
		return nil, err
	}
	_, hasText := m["text"]
	_, hasBlob := m["blob"]
	if hasText == hasBlob {
		return nil, errors.New("resource needs text or blob (base64), one of the two")
	}
	r := fieldReader{m: m, prefix: "resource."}
	res := &content.Resource{URI: r.str("uri", true), MIMEType: r.str("mimeType", false), Text: r.str("text", false), Blob: r.str("blob", hasBlob)}
	return res, r.err
}

// annotationsOf reads a block's annotations.
func annotationsOf(v any) (*content.Annotations, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("annotations must be a table {audience =, priority =, lastModified =}, not %s", jsonKind(v))
	}
	if err := onlyKeys(m, []string{"audience", "priority", "lastModified"}, "annotations."); err != nil {
		return nil, err
	}
	a := &content.Annotations{}
	if aud, ok := m["audience"]; ok {
		list, ok := aud.([]any)
		if !ok {
			return nil, fmt.Errorf(`annotations.audience must be a list of "user" and "assistant", not %s`, jsonKind(aud))
		}
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("annotations.audience[%d] must be a string, not %s", i+1, jsonKind(e))
			}
			a.Audience = append(a.Audience, s)
		}
	}
	if p, ok := m["priority"]; ok {
		f, ok := p.(float64)
		if !ok {
			return nil, fmt.Errorf("annotations.priority must be a number from 0 to 1, not %s", jsonKind(p))
		}
		a.Priority = &f
	}
	r := fieldReader{m: m, prefix: "annotations."}
	a.LastModified = r.str("lastModified", false)
	return a, r.err
}

// A fieldReader reads string fields of a table, keeping the first problem.
type fieldReader struct {
	m      map[string]any
	prefix string
	err    error
}

func (r *fieldReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// str returns the string field k; a missing one is a problem when required, one of
// another kind always.
func (r *fieldReader) str(k string, required bool) string {
	v, ok := r.m[k]
	if !ok {
		if required {
			r.fail(fmt.Errorf("%s%s is required", r.prefix, k))
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.fail(fmt.Errorf("%s%s must be a string, not %s", r.prefix, k, jsonKind(v)))
	}
	return s
}

// onlyKeys says which key of m is not one of keys, with the closest that is.
func onlyKeys[V any](m map[string]V, keys []string, prefix string) error {
	unknown, meant := spell.Unknown(m, keys)
	if unknown == "" {
		return nil
	}
	msg := fmt.Sprintf("unknown field %s%s", prefix, unknown)
	if meant != "" {
		msg += fmt.Sprintf(" (did you mean %s%s?)", prefix, meant)
	}
	return errors.New(msg)
}

// jsonKind names the kind of a JSON value, for errors.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	}
	return "a table"
}

// blockError says which block of a list is bad: "block 2 (audio): mimeType is
// required".
func blockError(i int, b engine.ContentBlock, err error) error {
	if _, known := blockKeys[b.Type]; known {
		return fmt.Errorf("block %d (%s): %w", i, b.Type, err)
	}
	return fmt.Errorf("block %d: %w", i, err)
}
