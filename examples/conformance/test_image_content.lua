-- test_image_content returns an image. call returns a result whose data is base64
-- of a PNG; mapResult turns that data into the blocks the model gets, an image block written
-- as the Anthropic API takes it, which luatool serve sends as MCP image content
-- ({type = "image", data = ..., mimeType = "image/png"}).
--
-- Conformance scenario: tools-call-image.
local media = require("media")

return {
  name = "test_image_content",
  prompt = "Answers with a 1x1 red PNG image; takes no input.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function()
    return { data = media.png }
  end,
  mapResult = function(png)
    return { { type = "image", source = { type = "base64", media_type = "image/png", data = png } } }
  end,
}
