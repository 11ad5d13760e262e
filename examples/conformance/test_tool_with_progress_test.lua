local test = require("test")
local assert = require("assert")

-- A luatest call has no progress token, so the progress reports go nowhere here;
-- the notifications a client gets are checked by tests/conformance_test.go
-- (tools-call-with-progress, over HTTP and stdio).
test.case("reports its progress and answers", function(t)
  local r = t:call("test_tool_with_progress", {})
  assert.eq(r.isError, false)
  assert.eq(r.text, "Tool with progress executed successfully")
end)
