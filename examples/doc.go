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
// conformance/ holds the tools the MCP conformance runner calls, written as any
// tool is: test_tool_with_logging (ctx:log), test_sampling (ctx:sample),
// test_elicitation and its SEP-1034 and SEP-1330 forms (ctx:elicit), each with Lua
// tests that stand in for the client's answers and show the tool without them.
package examples
