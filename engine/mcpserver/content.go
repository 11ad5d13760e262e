package mcpserver

import (
	"encoding/base64"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
)

// content maps one block of a tool result or a prompt message to the SDK's content of
// its kind, with its annotations. The loader has checked the blocks
// (engine.ContentBlock.Check); a block that still cannot be carried (a Go tool's,
// unchecked) becomes a text that says so rather than content a client would refuse.
func content(b engine.ContentBlock) mcp.Content {
	ann := annotations(b)
	switch b.Type {
	case "text":
		return &mcp.TextContent{Text: b.Text, Annotations: ann}
	case "image", "audio":
		data, _ := b.Source["data"].(string)
		mime, _ := b.Source["media_type"].(string)
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil || mime == "" {
			break
		}
		if b.Type == "audio" {
			return &mcp.AudioContent{Data: raw, MIMEType: mime, Annotations: ann}
		}
		return &mcp.ImageContent{Data: raw, MIMEType: mime, Annotations: ann}
	case "resource":
		if r := b.Resource; r != nil {
			rc := &mcp.ResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text}
			if r.Blob != "" {
				raw, err := base64.StdEncoding.DecodeString(r.Blob)
				if err != nil {
					break
				}
				rc.Text, rc.Blob = "", raw
			}
			return &mcp.EmbeddedResource{Resource: rc, Annotations: ann}
		}
	case "resource_link":
		if l := b.Link; l != nil {
			return &mcp.ResourceLink{URI: l.URI, Name: l.Name, Title: l.Title, Description: l.Description,
				MIMEType: l.MIMEType, Size: l.Size, Annotations: ann}
		}
	}
	return &mcp.TextContent{Text: engine.Content{b}.String(), Annotations: ann}
}

// annotations maps the annotations of b to the SDK's. The SDK leaves out a
// priority of 0, which MCP reads as absent: the least important and unsaid differ
// little to a client.
func annotations(b engine.ContentBlock) *mcp.Annotations {
	a := b.Annotations
	if a == nil {
		return nil
	}
	out := &mcp.Annotations{LastModified: a.LastModified}
	for _, r := range a.Audience {
		out.Audience = append(out.Audience, mcp.Role(r))
	}
	if a.Priority != nil {
		out.Priority = *a.Priority
	}
	return out
}
