local test = require("test")
local assert = require("assert")

test.case("select: returns a tool's definition", function(t)
  local r = t:call("ToolSearch", { query = "select:Read" })
  assert.eq(r.isError, false, r.text)
  assert.matches(r.text, '"name":"Read"')
end)

test.case("a query with no deferred match says so", function(t)
  local r = t:call("ToolSearch", { query = "nothing like this" })
  assert.matches(r.text, "No matching deferred tools found")
end)
