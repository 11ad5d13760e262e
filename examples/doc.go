// Package examples holds example tools, each in a directory of its own with its Lua
// tests, and the Go tests that run them as a host would: their Lua tests through
// luatool test's runner, and the tools themselves over MCP against a local server
// that stands in for the API they call.
//
// github/ is GitHubIssues, a tool that calls GitHub's REST API with the http module,
// reaching only the host it declares, with a token the host hands it through env,
// and JSON both ways.
//
// prompts/ holds an MCP prompt (commit_message, with arguments) and an MCP resource
// template (style://{language}), served beside the tools of their directory.
//
// conformance/ holds the tools, prompts and resources the MCP conformance runner
// calls by name, written as a user would write them, each showing one feature:
// every kind of content block, progress, errors, JSON Schema 2020-12, ctx:log,
// ctx:sample and ctx:elicit, completion and resource subscriptions.
// tests/conformance_test.go serves them to the runner and to the TypeScript SDK
// clients.
package examples
