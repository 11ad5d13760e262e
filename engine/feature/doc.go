// Package feature holds MCP's other two server features, beside tools: prompts (a
// template a client offers people as a command, whose arguments they fill in) and
// resources (content a client reads by URI or URI template). A file of a tool
// directory may define one instead of a tool: a loader hands the engine a Prompt
// (NewPrompt) or a Resource (NewResource) as ToolDef.Feature (with the Lua loader, a
// table with kind = "prompt" or kind = "resource"). The engine loads, checks and
// reloads them with the tools, within their own names (a prompt's name, a
// resource's URI or URI template): two files of a directory declaring one are both
// left out, and a later directory overrides an earlier one.
//
// Prompts and Resources list those of a registry snapshot; GetPrompt checks the
// arguments and renders a prompt, ReadResource reads the resource of a URI or of the
// first template that matches it. CompletePrompt and CompleteResource complete the
// value of a prompt's argument or a template's variable (a Completion: a list or a
// function), for MCP's completion/complete. ReportChange lets a tool's call say that
// the content at a URI changed (an engine.Event of kind ResourceChanged), as a reload
// of a resource's file does (ResourceUpdated), for the clients subscribed to it.
// Their code only computes: host functions that read or touch the world refuse,
// since no permission check guards what a client asks of them, and they see no
// principal's session (engine.Engine.FeatureContext). Package engine/mcpserver
// serves them to MCP clients.
package feature
