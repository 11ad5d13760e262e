package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/content"
	"github.com/luatool/luatool/engine/feature"
)

// Content blocks of every MCP kind, written in Lua, through mapResult and a prompt's
// get: what each becomes, and what each refusal says.

const (
	pngB64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavB64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// blockCases are Lua content blocks and the engine block each is, or the error
// it is refused with.
var blockCases = []struct {
	name, lua string
	want      engine.ContentBlock
	err       string
}{
	{name: "text", lua: `{type = "text", text = "hi"}`, want: engine.ContentBlock{Type: "text", Text: "hi"}},
	{name: "image, MCP shape", lua: `{type = "image", data = PNG, mimeType = "image/png"}`,
		want: engine.ContentBlock{Type: "image", Source: map[string]any{"type": "base64", "media_type": "image/png", "data": pngB64}}},
	{name: "image, Anthropic shape", lua: `{type = "image", source = {type = "base64", media_type = "image/png", data = PNG}}`,
		want: engine.ContentBlock{Type: "image", Source: map[string]any{"type": "base64", "media_type": "image/png", "data": pngB64}}},
	{name: "audio", lua: `{type = "audio", data = WAV, mimeType = "audio/wav"}`,
		want: engine.ContentBlock{Type: "audio", Source: map[string]any{"type": "base64", "media_type": "audio/wav", "data": wavB64}}},
	{name: "text resource", lua: `{type = "resource", resource = {uri = "test://r", mimeType = "text/plain", text = "body"}}`,
		want: engine.ContentBlock{Type: "resource", Resource: &content.Resource{URI: "test://r", MIMEType: "text/plain", Text: "body"}}},
	{name: "blob resource", lua: `{type = "resource", resource = {uri = "test://b", blob = PNG}}`,
		want: engine.ContentBlock{Type: "resource", Resource: &content.Resource{URI: "test://b", Blob: pngB64}}},
	{name: "resource link", lua: `{type = "resource_link", uri = "file:///a.csv", name = "a.csv", title = "A", description = "the a", mimeType = "text/csv", size = 12,
		annotations = {audience = {"user", "assistant"}, priority = 0.5, lastModified = "2025-01-12T15:00:58Z"}}`,
		want: engine.ContentBlock{Type: "resource_link", Link: &content.Link{URI: "file:///a.csv", Name: "a.csv", Title: "A", Description: "the a", MIMEType: "text/csv", Size: new(int64(12))},
			Annotations: &content.Annotations{Audience: []string{"user", "assistant"}, Priority: new(0.5), LastModified: "2025-01-12T15:00:58Z"}}},

	{name: "unknown type", lua: `{type = "video", data = PNG}`, err: `block 1: type "video" is not a content type (text, image, audio, resource or resource_link)`},
	{name: "near type", lua: `{type = "resource-link", uri = "u", name = "n"}`, err: "did you mean resource_link?"},
	{name: "no type", lua: `{text = "hi"}`, err: "block 1: type is required"},
	{name: "not a table", lua: `"hi"`, err: "block 1: must be a table"},
	{name: "unknown field", lua: `{type = "text", txt = "hi"}`, err: "block 1 (text): unknown field txt (did you mean text?)"},
	{name: "text without text", lua: `{type = "text"}`, err: "block 1 (text): text is required"},
	{name: "audio without mimeType", lua: `{type = "audio", data = WAV}`, err: "block 1 (audio): mimeType is required"},
	{name: "audio of an image type", lua: `{type = "audio", data = WAV, mimeType = "image/png"}`, err: `block 1 (audio): mimeType (source.media_type): "image/png" is not an audio type (audio/wav)`},
	{name: "image of a bad MIME type", lua: `{type = "image", data = PNG, mimeType = "png"}`, err: `block 1 (image): mimeType (source.media_type): "png" is not a MIME type (type/subtype, such as image/png)`},
	{name: "data not base64", lua: `{type = "image", data = "not base64!", mimeType = "image/png"}`, err: "block 1 (image): data (source.data) is not base64"},
	{name: "both shapes", lua: `{type = "image", data = PNG, mimeType = "image/png", source = {}}`, err: "give data and mimeType, or source, not both"},
	{name: "resource without uri", lua: `{type = "resource", resource = {text = "t"}}`, err: "block 1 (resource): resource.uri is required"},
	{name: "resource without contents", lua: `{type = "resource", resource = {uri = "u"}}`, err: "block 1 (resource): resource needs text or blob (base64), one of the two"},
	{name: "resource blob not base64", lua: `{type = "resource", resource = {uri = "u", blob = "@@"}}`, err: "block 1 (resource): resource.blob is not base64"},
	{name: "resource bad MIME", lua: `{type = "resource", resource = {uri = "u", text = "t", mimeType = "text"}}`, err: `resource.mimeType: "text" is not a MIME type`},
	{name: "link without uri", lua: `{type = "resource_link", name = "n"}`, err: "block 1 (resource_link): uri is required"},
	{name: "link without name", lua: `{type = "resource_link", uri = "u"}`, err: "block 1 (resource_link): name is required"},
	{name: "link of a fractional size", lua: `{type = "resource_link", uri = "u", name = "n", size = 1.5}`, err: "size must be a whole number of bytes"},
	{name: "bad audience", lua: `{type = "text", text = "t", annotations = {audience = {"model"}}}`, err: `block 1 (text): annotations.audience[1] must be "user" or "assistant", got "model"`},
	{name: "bad priority", lua: `{type = "text", text = "t", annotations = {priority = 2}}`, err: "annotations.priority must be from 0 to 1, got 2"},
	{name: "unknown annotation", lua: `{type = "text", text = "t", annotations = {audiense = {"user"}}}`, err: "unknown field annotations.audiense (did you mean annotations.audience?)"},
}

const mediaLocals = "local PNG, WAV = \"" + pngB64 + "\", \"" + wavB64 + "\"\n"

func TestLuaMapResultContentBlocks(t *testing.T) {
	for _, tc := range blockCases {
		t.Run(tc.name, func(t *testing.T) {
			src := mediaLocals + luaSourceWith(`name = "T",`, `prompt = "p",`, `inputSchema = {type = "object"},`,
				`isReadOnly = true,`, `call = function() return "x" end,`, `mapResult = function() return {`+tc.lua+`} end,`)
			e := luaEngine(t, engine.Options{}, map[string]string{"t.lua": src})
			r := e.Call(bg, engine.ToolUse{ID: "toolu_1", Name: "T", Input: []byte(`{}`)})
			if tc.err != "" {
				if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), tc.err) {
					t.Errorf("result = %q (error %v), want an error saying %q", r.Block.Content.String(), r.Block.IsError, tc.err)
				}
				return
			}
			if r.Block.IsError || len(r.Block.Content) != 1 || !reflect.DeepEqual(r.Block.Content[0], tc.want) {
				t.Errorf("content = %#v (error %v), want %#v", r.Block.Content, r.Block.IsError, tc.want)
			}
		})
	}
}

func TestLuaPromptContentBlocks(t *testing.T) {
	for _, tc := range blockCases {
		if tc.lua == `"hi"` {
			continue // a string is a text message's content
		}
		t.Run(tc.name, func(t *testing.T) {
			src := mediaLocals + `return {kind = "prompt", name = "p", get = function()
  return {{role = "user", content = "first"}, {role = "assistant", content = ` + tc.lua + `}}
end}`
			e := luaEngine(t, engine.Options{}, map[string]string{"p.lua": src})
			got, err := feature.GetPrompt(bg, e, "p", nil)
			if tc.err != "" {
				// A prompt names the message, where a result names the block.
				want := strings.Replace(strings.Replace(tc.err, "block 1 (", "content (", 1), "block 1: ", "content: ", 1)
				if err == nil || !strings.Contains(err.Error(), "message 2") || !strings.Contains(err.Error(), want) {
					t.Errorf("GetPrompt = %v, want an error naming message 2 and saying %q", err, want)
				}
				return
			}
			if err != nil || len(got.Messages) != 2 || !reflect.DeepEqual(got.Messages[1].Content, tc.want) {
				t.Errorf("GetPrompt = %+v, %v; want content %#v", got, err, tc.want)
			}
		})
	}
}
