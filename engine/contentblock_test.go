package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/content"
	"github.com/luatool/luatool/engine/env"
)

// The media of the MCP conformance fixtures: a 1x1 PNG and an empty WAV.
const (
	testPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	testWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func media(kind, mime, data string) ContentBlock {
	return ContentBlock{Type: kind, Source: map[string]any{"type": "base64", "media_type": mime, "data": data}}
}

// TestContentModelRendering holds the Messages API rendering of each kind of block
// to the texts documented in docs/compatibility.md (Claude Code's for MCP results,
// without a server name, binary data not kept).
func TestContentModelRendering(t *testing.T) {
	size := int64(44)
	tests := []struct {
		name string
		b    ContentBlock
		want string
	}{
		{"text", ContentBlock{Type: "text", Text: "hi", Annotations: &content.Annotations{Audience: []string{"user"}}},
			`[{"type":"text","text":"hi"}]`},
		{"png", media("image", "image/png", testPNG),
			`[{"type":"image","source":{"data":"` + testPNG + `","media_type":"image/png","type":"base64"}}]`},
		{"image the API does not read", media("image", "image/bmp", "AAAA"),
			`[{"type":"text","text":"[Image] Binary content (image/bmp, 3 bytes) is not shown to the model"}]`},
		{"audio", media("audio", "audio/wav", testWAV),
			`[{"type":"text","text":"[Audio] Binary content (audio/wav, 44 bytes) is not shown to the model"}]`},
		{"text resource", ContentBlock{Type: "resource", Resource: &content.Resource{URI: "test://r", MIMEType: "text/plain", Text: "body"}},
			`[{"type":"text","text":"[Resource at test://r] body"}]`},
		{"image resource", ContentBlock{Type: "resource", Resource: &content.Resource{URI: "file:///a.png", MIMEType: "image/png", Blob: testPNG}},
			`[{"type":"text","text":"[Resource at file:///a.png] "},{"type":"image","source":{"data":"` + testPNG + `","media_type":"image/png","type":"base64"}}]`},
		{"binary resource", ContentBlock{Type: "resource", Resource: &content.Resource{URI: "file:///a.bin", Blob: "AAE="}},
			`[{"type":"text","text":"[Resource at file:///a.bin] Binary content (unknown type, 2 bytes) is not shown to the model"}]`},
		{"link", ContentBlock{Type: "resource_link", Link: &content.Link{URI: "file:///x", Name: "x", Size: &size}},
			`[{"type":"text","text":"[Resource link: x] file:///x"}]`},
		{"link with description", ContentBlock{Type: "resource_link", Link: &content.Link{URI: "file:///x", Name: "x", Title: "X", Description: "the x"}},
			`[{"type":"text","text":"[Resource link: x] file:///x (the x)"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Content{tt.b, {Type: "text", Text: "after"}}
			got, err := json.Marshal(c)
			want := strings.TrimSuffix(tt.want, "]") + `,{"type":"text","text":"after"}]`
			if err != nil || string(got) != want {
				t.Errorf("Marshal = %s, %v\nwant      %s", got, err, want)
			}
			if err := tt.b.Check(); err != nil {
				t.Errorf("Check = %v", err)
			}
		})
	}
	// What String gives (luatool call prints it, hooks and codemode read it) is the
	// text the model reads.
	c := Content{{Type: "text", Text: "a"}, media("audio", "audio/wav", testWAV), {Type: "resource", Resource: &content.Resource{URI: "u", Text: "t"}}}
	if got, want := c.String(), "a\n[Audio] Binary content (audio/wav, 44 bytes) is not shown to the model\n[Resource at u] t"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestContentBlockCheck(t *testing.T) {
	tests := []struct {
		name string
		b    ContentBlock
		want string
	}{
		{"unknown type", ContentBlock{Type: "vidoe"}, `type "vidoe" is not a content type`},
		{"near type", ContentBlock{Type: "resource-link"}, "did you mean resource_link?"},
		{"audio without mimeType", media("audio", "", testWAV), "mimeType (source.media_type) is required"},
		{"audio of an image type", media("audio", "image/png", testWAV), `"image/png" is not an audio type`},
		{"image of an audio type", media("image", "audio/wav", testPNG), `"audio/wav" is not an image type`},
		{"not a MIME type", media("image", "png", testPNG), `"png" is not a MIME type`},
		{"data not base64", media("audio", "audio/wav", "not base64!"), "data (source.data) is not base64"},
		{"empty data", media("image", "image/png", ""), "data (source.data) is empty"},
		{"url source", ContentBlock{Type: "image", Source: map[string]any{"type": "url", "url": "https://x"}}, `source.type must be "base64"`},
		{"resource without contents", ContentBlock{Type: "resource"}, "resource is required"},
		{"resource without uri", ContentBlock{Type: "resource", Resource: &content.Resource{Text: "t"}}, "resource.uri is required"},
		{"resource blob not base64", ContentBlock{Type: "resource", Resource: &content.Resource{URI: "u", Blob: "@@"}}, "resource.blob is not base64"},
		{"resource bad MIME", ContentBlock{Type: "resource", Resource: &content.Resource{URI: "u", MIMEType: "text", Text: "t"}}, `resource.mimeType: "text" is not a MIME type`},
		{"link without name", ContentBlock{Type: "resource_link", Link: &content.Link{URI: "u"}}, "name is required"},
		{"link without uri", ContentBlock{Type: "resource_link", Link: &content.Link{Name: "n"}}, "uri is required"},
		{"link bad MIME", ContentBlock{Type: "resource_link", Link: &content.Link{URI: "u", Name: "n", MIMEType: "x/"}}, `mimeType: "x/" is not a MIME type`},
		{"bad audience", ContentBlock{Type: "text", Annotations: &content.Annotations{Audience: []string{"model"}}}, `annotations.audience[1] must be "user" or "assistant"`},
		{"bad priority", ContentBlock{Type: "text", Annotations: &content.Annotations{Priority: new(1.5)}}, "annotations.priority must be from 0 to 1"},
		{"bad lastModified", ContentBlock{Type: "text", Annotations: &content.Annotations{LastModified: "yesterday"}}, "annotations.lastModified must be an ISO 8601 time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.b.Check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want it to say %q", err, tt.want)
			}
		})
	}
	ok := ContentBlock{Type: "resource_link", Link: &content.Link{URI: "u", Name: "n", MIMEType: "text/plain; charset=utf-8"},
		Annotations: &content.Annotations{Audience: []string{"user", "assistant"}, Priority: new(0.0), LastModified: "2025-01-12T15:00:58Z"}}
	if err := ok.Check(); err != nil {
		t.Errorf("Check of a good link = %v", err)
	}
}

// TestRedactContentBlocks holds the redaction of results to every text a block shows:
// a secret in an embedded resource or a link must not reach the model or a client.
func TestRedactContentBlocks(t *testing.T) {
	set, err := env.New([]env.Var{{Name: "TOKEN", Value: "s3cret-value-long-enough", Secret: true}})
	if err != nil {
		t.Fatal(err)
	}
	r := set.Redactor()
	res := &content.Resource{URI: "u", Text: "token s3cret-value-long-enough"}
	c := Content{{Type: "resource", Resource: res}, {Type: "resource_link", Link: &content.Link{URI: "x://s3cret-value-long-enough", Name: "n"}}}
	got := redactContent(r, c)
	if strings.Contains(got[0].Resource.Text, "s3cret") || strings.Contains(got[1].Link.URI, "s3cret") {
		t.Errorf("redacted = %+v %+v", got[0].Resource, got[1].Link)
	}
	if res.Text != "token s3cret-value-long-enough" {
		t.Errorf("the tool's resource was changed in place: %q", res.Text)
	}
}
