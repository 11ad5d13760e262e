local test = require("test")
local assert = require("assert")

test.case("answers without an error after its pause", function(t)
  local r = t:call("test_reconnection", {})
  assert.eq(r.isError, false)
  assert.matches(r.text, "^Reconnection test completed successfully%.")
end)
