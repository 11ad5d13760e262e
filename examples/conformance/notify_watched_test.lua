-- notify_watched reports a URI that a resource of the directory serves: a URI
-- nothing serves would be an error, and the call would fail.
local test = require("test")
local assert = require("assert")

test.case("reports the watched resource changed", function(t)
  local r = t:call("notify_watched", {})
  assert.eq(r.isError, false)
  assert.eq(r.text, "test://watched-resource was reported changed")
end)
