-- Conformance (resources-read-binary): a binary resource, read as a base64 blob.
local media = require("media")

---@type luatool.Resource
return {
  kind = "resource",
  uri = "test://static-binary",
  name = "static-binary",
  description = "A static binary resource (an image) for testing",
  mimeType = "image/png",
  read = function()
    return { blob = media.png }
  end,
}
