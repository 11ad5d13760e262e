local test = require("test")
local assert = require("assert")

test.case("answers one embedded text resource", function(t)
  local r = t:call("test_embedded_resource", {})
  assert.eq(r.content, { {
    type = "resource",
    resource = { uri = "test://embedded-resource", mimeType = "text/plain", text = "This is an embedded resource content." },
  } })
  assert.eq(r.text, "[Resource at test://embedded-resource] This is an embedded resource content.")
end)
