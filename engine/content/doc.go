// Package content holds the parts of a content block that MCP has and the Messages API
// lacks: an embedded resource's contents (Resource), a link to a resource (Link) and
// the annotations any block may carry (Annotations), with the checks that a block of
// each kind, and its MIME type and base64 data, are what MCP 2025-11-25 takes.
// engine.ContentBlock holds them; the engine renders them for a model, package
// mcpserver hands them to MCP clients as they are.
package content
