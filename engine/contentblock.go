package engine

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/luatool/luatool/engine/content"
	"github.com/luatool/luatool/internal/spell"
)

// contentTypes are the block types MCP takes in a tool result and a prompt message.
var contentTypes = []string{"text", "image", "audio", "resource", "resource_link"}

// Check says what is wrong with b, if anything, naming the field (the caller names
// the block and its type): a type MCP does not
// take, a required field missing (an audio block's data, a resource's uri, a link's
// name), data that is not base64, a MIME type that is not type/subtype or not of the
// block's kind (image/* for an image, audio/* for audio).
func (b ContentBlock) Check() error {
	var err error
	switch b.Type {
	case "text":
	case "image", "audio":
		err = b.checkMedia()
	case "resource":
		err = errors.New("resource is required")
		if b.Resource != nil {
			err = b.Resource.Check()
		}
	case "resource_link":
		err = errors.New("uri and name are required")
		if b.Link != nil {
			err = b.Link.Check()
		}
	default:
		msg := fmt.Sprintf("type %q is not a content type (text, image, audio, resource or resource_link)", b.Type)
		if s := spell.Suggest(b.Type, contentTypes); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		return errors.New(msg)
	}
	if err == nil && b.Annotations != nil {
		err = b.Annotations.Check()
	}
	return err
}

// checkMedia checks an image's or audio's source: base64 data of a MIME type of the
// block's kind. The fields are named as MCP names them, with the Anthropic source's
// names beside.
func (b ContentBlock) checkMedia() error {
	if t, _ := b.Source["type"].(string); t != "base64" {
		return fmt.Errorf(`source.type must be "base64", got %v`, b.Source["type"])
	}
	mime, _ := b.Source["media_type"].(string)
	if mime == "" {
		return errors.New("mimeType (source.media_type) is required")
	}
	if err := content.CheckMIME(mime, b.Type); err != nil {
		return fmt.Errorf("mimeType (source.media_type): %w", err)
	}
	data, _ := b.Source["data"].(string)
	if err := content.CheckBase64(data); err != nil {
		return fmt.Errorf("data (source.data) %w", err)
	}
	return nil
}

// A modelBlock is a block of tool_result content as the Messages API takes it: text,
// or an image of a type it reads.
type modelBlock struct {
	Type   string         `json:"type"`
	Text   string         `json:"text,omitempty"`
	Source map[string]any `json:"source,omitempty"`
}

// model returns c as the Messages API takes it.
func (c Content) model() []modelBlock {
	out := make([]modelBlock, 0, len(c))
	for _, b := range c {
		out = b.appendModel(out)
	}
	return out
}

// modelImageTypes are the image types the Messages API reads.
var modelImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// appendModel appends what a model is shown of b, in the words Claude Code uses for an
// MCP tool's result (2.1.328), less the server's name: luatool's tools are not behind
// a server. What the Messages API cannot carry becomes text: audio, and a binary not
// an image, are named with their type and size; Claude Code saves them to a file
// and gives its path, luatool does not keep them. Annotations are not shown.
func (b ContentBlock) appendModel(dst []modelBlock) []modelBlock {
	switch b.Type {
	case "image":
		mime, _ := b.Source["media_type"].(string)
		if modelImageTypes[mime] {
			return append(dst, modelBlock{Type: "image", Source: b.Source})
		}
		data, _ := b.Source["data"].(string)
		return append(dst, modelBlock{Type: "text", Text: binaryText("[Image] ", mime, data)})
	case "audio":
		mime, _ := b.Source["media_type"].(string)
		data, _ := b.Source["data"].(string)
		return append(dst, modelBlock{Type: "text", Text: binaryText("[Audio] ", mime, data)})
	case "resource":
		if b.Resource == nil {
			return dst
		}
		r := b.Resource
		prefix := "[Resource at " + r.URI + "] "
		switch {
		case r.Blob == "":
			return append(dst, modelBlock{Type: "text", Text: prefix + r.Text})
		case modelImageTypes[r.MIMEType]:
			return append(dst, modelBlock{Type: "text", Text: prefix},
				modelBlock{Type: "image", Source: map[string]any{"type": "base64", "media_type": r.MIMEType, "data": r.Blob}})
		}
		return append(dst, modelBlock{Type: "text", Text: binaryText(prefix, r.MIMEType, r.Blob)})
	case "resource_link":
		if b.Link == nil {
			return dst
		}
		text := "[Resource link: " + b.Link.Name + "] " + b.Link.URI
		if b.Link.Description != "" {
			text += " (" + b.Link.Description + ")"
		}
		return append(dst, modelBlock{Type: "text", Text: text})
	}
	return append(dst, modelBlock{Type: b.Type, Text: b.Text, Source: b.Source})
}

// binaryText names binary data the model is not shown, as Claude Code does when it
// cannot save it.
func binaryText(prefix, mime, data string) string {
	if mime == "" {
		mime = "unknown type"
	}
	return prefix + "Binary content (" + mime + ", " + strconv.Itoa(content.DecodedLen(data)) + " bytes) is not shown to the model"
}

// texts returns b with f applied to each text it shows a reader: a text block's text,
// an embedded resource's text, a link's name, title, description and URI; and
// whether one changed. b's resource and link are copied before they change.
func (b ContentBlock) texts(f func(string) string) (ContentBlock, bool) {
	changed := false
	apply := func(s *string) {
		if t := f(*s); t != *s {
			*s, changed = t, true
		}
	}
	switch b.Type {
	case "text":
		apply(&b.Text)
	case "resource":
		if b.Resource != nil {
			r := *b.Resource
			apply(&r.Text)
			b.Resource = &r
		}
	case "resource_link":
		if b.Link != nil {
			l := *b.Link
			apply(&l.Name)
			apply(&l.Title)
			apply(&l.Description)
			apply(&l.URI)
			b.Link = &l
		}
	}
	return b, changed
}
