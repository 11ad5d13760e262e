package content

import (
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"strings"
	"time"
)

// A Resource is the contents of an embedded resource (a block of type "resource"):
// its URI, its MIME type when known, and either its text or its binary data.
type Resource struct {
	URI string
	// MIMEType is optional.
	MIMEType string
	// Text is the contents of a text resource.
	Text string
	// Blob is the base64 of a binary resource; a resource is binary when it is set.
	Blob string
}

// Check says what is wrong with r, naming the field ("resource.uri"): a URI is
// required, a MIME type must be type/subtype, a blob must be base64.
func (r *Resource) Check() error {
	if r.URI == "" {
		return errors.New("resource.uri is required")
	}
	if r.MIMEType != "" {
		if err := CheckMIME(r.MIMEType, ""); err != nil {
			return fmt.Errorf("resource.mimeType: %w", err)
		}
	}
	if r.Blob != "" {
		if err := CheckBase64(r.Blob); err != nil {
			return fmt.Errorf("resource.blob %w", err)
		}
	}
	return nil
}

// A Link is a link to a resource the client may read or subscribe to (a block of type
// "resource_link"), with what MCP says of a resource.
type Link struct {
	// URI and Name are required.
	URI, Name string
	// Title is a name for people; Description says what the resource is.
	Title, Description string
	// MIMEType is optional.
	MIMEType string
	// Size is the resource's size in bytes, when known.
	Size *int64
}

// Check says what is wrong with l, naming the field: a URI and a name are required, a
// MIME type must be type/subtype and a size not negative.
func (l *Link) Check() error {
	switch {
	case l.URI == "":
		return errors.New("uri is required")
	case l.Name == "":
		return errors.New("name is required")
	case l.Size != nil && *l.Size < 0:
		return fmt.Errorf("size must not be negative, got %d", *l.Size)
	}
	if l.MIMEType != "" {
		if err := CheckMIME(l.MIMEType, ""); err != nil {
			return fmt.Errorf("mimeType: %w", err)
		}
	}
	return nil
}

// Annotations tell a client how to use a block: for whom it is, how much it matters,
// when what it shows last changed.
type Annotations struct {
	// Audience holds "user", "assistant" or both.
	Audience []string
	// Priority is from 0 (entirely optional) to 1 (effectively required), when given.
	Priority *float64
	// LastModified is an ISO 8601 time ("2025-01-12T15:00:58Z").
	LastModified string
}

// Check says what is wrong with a, naming the field ("annotations.priority").
func (a *Annotations) Check() error {
	for i, r := range a.Audience {
		if r != "user" && r != "assistant" {
			return fmt.Errorf(`annotations.audience[%d] must be "user" or "assistant", got %q`, i+1, r)
		}
	}
	if a.Priority != nil && !(*a.Priority >= 0 && *a.Priority <= 1) {
		return fmt.Errorf("annotations.priority must be from 0 to 1, got %v", *a.Priority)
	}
	if a.LastModified != "" {
		if _, err := time.Parse(time.RFC3339Nano, a.LastModified); err != nil {
			return fmt.Errorf("annotations.lastModified must be an ISO 8601 time such as 2025-01-12T15:00:58Z, got %q", a.LastModified)
		}
	}
	return nil
}

// CheckMIME says what is wrong with a MIME type: it must be type/subtype (parameters
// may follow, "text/plain; charset=utf-8"), and of the major type major when major is
// not empty ("image" for an image block).
func CheckMIME(mimeType, major string) error {
	mt, _, err := mime.ParseMediaType(mimeType)
	typ, sub, ok := strings.Cut(mt, "/")
	if err != nil || !ok || typ == "" || sub == "" {
		return fmt.Errorf("%q is not a MIME type (type/subtype, such as %s)", mimeType, example(major))
	}
	if major != "" && typ != major {
		return fmt.Errorf("%q is not an %s type (%s)", mimeType, major, example(major))
	}
	return nil
}

// example is a MIME type of a major type, for errors.
func example(major string) string {
	switch major {
	case "image":
		return "image/png"
	case "audio":
		return "audio/wav"
	}
	return "text/plain"
}

// CheckBase64 says what is wrong with data as base64 (standard alphabet, padded), as
// MCP carries binary data.
func CheckBase64(data string) error {
	if data == "" {
		return errors.New("is empty (base64 expected)")
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return fmt.Errorf("is not base64: %v", err)
	}
	return nil
}

// DecodedLen returns how many bytes the base64 data decodes to.
func DecodedLen(data string) int {
	n := len(data) / 4 * 3
	if strings.HasSuffix(data, "==") {
		return n - 2
	}
	if strings.HasSuffix(data, "=") {
		return n - 1
	}
	return n
}
