-- Conformance (resources-list, resources-read-text): a text resource.

---@type luatool.Resource
return {
  kind = "resource",
  uri = "test://static-text",
  name = "static-text",
  description = "A static text resource for testing",
  mimeType = "text/plain",
  read = function()
    return "This is the content of the static text resource."
  end,
}
