-- Conformance (resources-templates-read): a template whose variable is in the
-- content read. Its id completes from a list: completion/complete offers the
-- ids that start with what was typed.
local json = require("json")

---@type luatool.Resource
return {
  kind = "resource",
  uriTemplate = "test://template/{id}/data",
  name = "template",
  description = "A resource template with parameter substitution",
  mimeType = "application/json",
  complete = { id = { "123", "124", "456" } },
  read = function(uri, ctx, params)
    return json.encode({ id = params.id, templateTest = true, data = "Data for ID: " .. params.id })
  end,
}
