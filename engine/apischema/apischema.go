// Package apischema turns tool definitions into the tool formats of the model APIs
// and of MCP: what a host sends in the tools array of a request, and what an MCP
// server answers to tools/list.
//
// Each API has its own rules. Anthropic, OpenAI and Gemini accept tool names of
// ^[a-zA-Z0-9_-]{1,64}$ only (Gemini's documents disagree on dots, and want a
// letter or an underscore first), so a name with dots is sent in its API form (dots
// as underscores; the engine finds the tool under that name too) and a name longer
// than 64 characters is an error. Anthropic refuses a request whose input_schema
// has anyOf, oneOf or allOf at its root: such a tool is an error of the export.
// OpenAI's strict mode accepts only a subset of JSON Schema; a tool is marked strict
// only when its schema is within that subset once objects are closed
// (additionalProperties: false), never by changing what the schema means, and a
// Note says why a tool is not strict. Gemini takes the schema as it is
// (parametersJsonSchema) or in its OpenAPI subset (parameters), into which
// GeminiOpenAPI rewrites it, with a Note of what changed.
package apischema

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
)

// A Format is a tool-definition format.
type Format string

// The formats.
const (
	// Anthropic is the Messages API: {name, description, input_schema}.
	Anthropic Format = "anthropic"
	// OpenAI is the Chat Completions API: {type: "function", function: {name,
	// description, parameters, strict}}.
	OpenAI Format = "openai"
	// MCP is the Model Context Protocol's Tool, as in a tools/list result.
	MCP Format = "mcp"
	// Gemini is the Gemini API's FunctionDeclaration with the input schema as it is:
	// {name, description, parametersJsonSchema}. The list is the functionDeclarations
	// of one entry of a request's tools.
	Gemini Format = "gemini"
	// GeminiOpenAPI is the FunctionDeclaration with the input schema rewritten as
	// Gemini's Schema object, a subset of OpenAPI 3.0's: {name, description,
	// parameters} (see geminiParameters). A Note says what was rewritten.
	GeminiOpenAPI Format = "gemini-openapi"
)

// Formats lists the formats, for help and error texts.
var Formats = []Format{Anthropic, OpenAI, MCP, Gemini, GeminiOpenAPI}

// ParseFormat returns the format of that name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown schema format %q; supported: %s", s, strings.Join(names, ", "))
}

// A Note says what an export did to a tool that its author may want to know: a name
// mapped, strict mode left off and why.
type Note struct {
	Tool    string
	Message string
}

func (n Note) String() string { return n.Tool + ": " + n.Message }

// Export returns the definitions of defs in format f, one JSON-encodable value per
// tool, with notes. Anthropic gets every tool, a deferred one marked
// defer_loading: true, which the Messages API keeps out of the model's context
// until its tool search finds the tool (the request then needs a tool search tool:
// the note says so). OpenAI and Gemini, which have no such mark, get the tools
// whose schemas are announced: a deferred tool not yet discovered is left out, with
// a note, never silently. MCP gets every tool, since a client calls only what it
// was listed and does its own deferring. Names that an API cannot accept are
// errors, all reported at once.
func Export(f Format, defs []engine.Definition) ([]any, []Note, error) {
	if f == MCP {
		out := make([]any, len(defs))
		for i, d := range defs {
			out[i] = MCPTool(d)
		}
		return out, nil, nil
	}
	names, notes, err := apiNames(defs)
	if err != nil {
		return nil, nil, err
	}
	var out []any
	var refused []error
	for _, d := range defs {
		if !d.Announced && f != Anthropic {
			notes = append(notes, Note{d.Name, "deferred: left out until ToolSearch finds it (this API has no deferred loading)"})
			continue
		}
		schema := withProperties(d.InputSchema)
		switch f {
		case Anthropic:
			if err := anthropicRoot(schema); err != nil {
				refused = append(refused, fmt.Errorf("tool %q: %w", d.Name, err))
				continue
			}
			def := map[string]any{"name": names[d.Name], "description": d.Description, "input_schema": schema}
			if d.Deferred {
				def["defer_loading"] = true
				notes = append(notes, Note{d.Name, "deferred: sent with defer_loading: true, for the API's tool search (the request needs a tool search tool)"})
			}
			out = append(out, def)
		case OpenAI:
			fn := map[string]any{"name": names[d.Name], "description": d.Description, "parameters": schema, "strict": false}
			if strict, why := openAIStrict(schema); why == nil {
				fn["parameters"], fn["strict"] = strict, true
			} else {
				notes = append(notes, Note{d.Name, "not strict: " + why.Error()})
			}
			out = append(out, map[string]any{"type": "function", "function": fn})
		case Gemini, GeminiOpenAPI:
			if err := geminiName(d.Name, names[d.Name]); err != nil {
				refused = append(refused, err)
				continue
			}
			fn, more, err := geminiFunction(f, d.Name, names[d.Name], d.Description, schema)
			if err != nil {
				refused = append(refused, err)
				continue
			}
			notes = append(notes, more...)
			out = append(out, fn)
		default:
			return nil, nil, fmt.Errorf("unknown schema format %q", f)
		}
	}
	if len(refused) > 0 {
		return nil, nil, errors.Join(refused...)
	}
	return out, notes, nil
}

// anthropicRoot reports a schema the Messages API refuses at its root: one with
// anyOf, oneOf or allOf there. The API fails the whole request, every tool with
// it, so the export fails too (as for a schema GeminiOpenAPI cannot write), saying
// what to change.
func anthropicRoot(schema map[string]any) error {
	var found []string
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if _, ok := schema[k]; ok {
			found = append(found, k)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("input_schema has %s at its root, which the Anthropic Messages API refuses (the whole request fails); "+
		"describe the input as one object (the properties of every alternative, required only those all of them require) "+
		"and check the combinations in validateInput, or move the alternatives into a property",
		strings.Join(found, " and "))
}

// apiNames maps each tool's name to its API form, and fails, naming every tool
// concerned, when a name has no API form or two tools would share one.
func apiNames(defs []engine.Definition) (map[string]string, []Note, error) {
	names := map[string]string{}
	owner := map[string]string{}
	for _, d := range defs {
		owner[d.Name] = d.Name
	}
	var notes []Note
	var errs []error
	for _, d := range defs {
		api, err := engine.APIName(d.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if api != d.Name {
			if other, taken := owner[api]; taken {
				errs = append(errs, fmt.Errorf("tool name %q would be sent as %q, which is the name of tool %q", d.Name, api, other))
				continue
			}
			owner[api] = d.Name
			notes = append(notes, Note{d.Name, "sent as " + api + " (the API does not accept dots in tool names)"})
		}
		names[d.Name] = api
	}
	return names, notes, errors.Join(errs...)
}

// MaxClientResultChars is the largest anthropic/maxResultSizeChars Claude Code
// accepts: the value sent for a tool the engine never persists.
const MaxClientResultChars = 500_000

// MCPTool returns a tool's MCP definition: title from userFacingName, the prompt as
// description, the schemas, annotations from the hints the tool declares, and the
// hints Claude Code reads from _meta (anthropic/searchHint, anthropic/alwaysLoad,
// anthropic/maxResultSizeChars). Hints a tool leaves undeclared are left out, so
// that clients assume the unsafe answer.
//
// anthropic/maxResultSizeChars is the tool's persistence threshold: the engine
// persists a larger text result itself and sends its preview, so a client that
// keeps results up to that size inline (Claude Code does; without the key it
// applies its own MCP output limit) shows the model what the engine's own loop
// would. A tool that is never persisted gets MaxClientResultChars.
func MCPTool(d engine.Definition) *mcp.Tool {
	t := &mcp.Tool{
		Name:        d.Name,
		Title:       d.Title,
		Description: d.Description,
		InputSchema: withProperties(d.InputSchema),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    isTrue(d.Hints.ReadOnly),
			DestructiveHint: d.Hints.Destructive,
			IdempotentHint:  isTrue(d.Hints.Idempotent),
			OpenWorldHint:   d.Hints.OpenWorld,
		},
	}
	if isTrue(d.Hints.ReadOnly) {
		t.Annotations.DestructiveHint = nil // meaningful only for tools that change things
	}
	if d.OutputSchema != nil {
		t.OutputSchema = d.OutputSchema
	}
	meta := mcp.Meta{}
	if d.SearchHint != "" {
		meta["anthropic/searchHint"] = d.SearchHint
	}
	if d.AlwaysLoad {
		meta["anthropic/alwaysLoad"] = true
	}
	if limit := clientResultChars(d.MaxResultSizeChars); limit > 0 {
		meta["anthropic/maxResultSizeChars"] = limit
	}
	if len(meta) > 0 {
		t.Meta = meta
	}
	return t
}

func isTrue(b *bool) bool { return b != nil && *b }

// clientResultChars is the anthropic/maxResultSizeChars of a persistence threshold:
// a whole number of characters, at most MaxClientResultChars; 0 (left out) for a
// definition made without one.
func clientResultChars(limit float64) int {
	switch {
	case math.IsInf(limit, 1) || limit >= MaxClientResultChars:
		return MaxClientResultChars
	case limit > 0:
		return int(math.Ceil(limit))
	default:
		return 0
	}
}

// withProperties returns the schema with an empty properties object when it has
// none: several clients and APIs refuse an object schema without one.
func withProperties(schema map[string]any) map[string]any {
	if _, ok := schema["properties"]; ok {
		return schema
	}
	out := make(map[string]any, len(schema)+1)
	for k, v := range schema {
		out[k] = v
	}
	out["properties"] = map[string]any{}
	return out
}
