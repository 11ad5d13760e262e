local test = require("test")
local assert = require("assert")
local media = require("media")

test.case("returns the PNG, mapped to an image block", function(t)
  local r = t:call("test_image_content", {})
  -- A mapResult that failed would make this an error result with its message.
  assert.eq(r.isError, false)
  assert.eq(r.data, media.png)
  -- The one block is the image: the model sees no text.
  assert.eq(r.text, "")
end)
