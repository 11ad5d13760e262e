-- test_multiple_content_types answers with three kinds of block in one result: text,
-- an image and an embedded JSON resource (conformance: tools-call-mixed-content).
local json = require("json")
local media = require("media")

return {
  name = "test_multiple_content_types",
  prompt = "Tests response with multiple content types (text, image, resource).",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function() return { data = { test = "data", value = 123 } } end,
  mapResult = function(data)
    return {
      { type = "text", text = "Multiple content types test:" },
      { type = "image", data = media.png, mimeType = "image/png" },
      { type = "resource", resource = {
        uri = "test://mixed-content-resource", mimeType = "application/json", text = json.encode(data),
      } },
    }
  end,
}
