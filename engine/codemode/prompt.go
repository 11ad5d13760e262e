package codemode

import (
	"fmt"
	"strings"
)

// prompt is the tool's description for the model: what a script may do, how the
// results of its calls look, its limits, the tools it may call and an example.
func prompt(o Options, tools []string) string {
	var b strings.Builder
	b.WriteString(`Runs a Lua 5.1 script that calls other tools and combines their results in one step. Use it when a task takes many tool calls whose results you only need in part: finding files, reading each and counting, collecting or summarising what they hold. You read only what the script returns, not every result it saw.

In the script:
- tools.call(name, input) makes one tool call, exactly as if you made it yourself: the same input schema, validation and permissions. A call that needs approval is asked about; a denied call returns the denial. It returns a table:
    text      the result as you would read it
    is_error  true when the call failed or was denied
    data      the tool's structured output, when it has one (Glob: data.filenames; Read: data.file.content; Grep: data.filenames or data.content)
  A failed call does not stop the script: check is_error.
- tools.list() returns the callable tools, each {name, searchHint, inputSchema}.
- tools and json (encode, decode) are there; re (regular expressions), time, base64, hex, url, crypto and uuid can be required (local re = require("re")); so are Lua's string, table and math. Nothing else reaches files, commands or the network: only the tools do.
- The script's return value is the result: a string as it is, a table as JSON. print writes to the log, which you do not see.
`)
	fmt.Fprintf(&b, "- Limits: at most %d tool calls and %s for the whole script.\n", o.MaxCalls, o.Timeout)
	if list := callable(tools); len(list) > 0 {
		fmt.Fprintf(&b, "\nCallable tools: %s.\n", strings.Join(list, ", "))
	}
	b.WriteString(`
Example: the number of lines of each Go file under src.

    local found = tools.call("Glob", {pattern = "src/**/*.go"})
    if found.is_error then return found.text end
    local lines = {}
    for _, path in ipairs(found.data.filenames) do
      local r = tools.call("Read", {file_path = path})
      lines[path] = r.is_error and r.text or r.data.file.numLines
    end
    return lines
`)
	return b.String()
}
