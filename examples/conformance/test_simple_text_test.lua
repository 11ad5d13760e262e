local test = require("test")
local assert = require("assert")

test.case("answers its line of text", function(t)
  local r = t:call("test_simple_text", {})
  assert.eq(r.isError, false)
  assert.eq(r.text, "This is a simple text response for testing.")
end)

test.case("asks for no permission: it only answers", function(t)
  local r = t:call("test_simple_text", {})
  assert.eq(r.asked, false)
end)
