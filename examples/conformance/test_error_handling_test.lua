local test = require("test")
local assert = require("assert")

test.case("fails with an error result the model reads", function(t)
  local r = t:call("test_error_handling", {})
  assert.eq(r.isError, true)
  assert.eq(r.stage, "call")
  assert.eq(r.text, "This tool intentionally returns an error for testing")
end)
