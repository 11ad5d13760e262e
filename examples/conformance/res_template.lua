-- Conformance (resources-templates-read): a template whose variable is in the
-- content read. Its id completes by a function: the ids of the known records
-- that start with what was typed.
local json = require("json")

local ids = { "123", "124", "456" }

---@type luatool.Resource
return {
  kind = "resource",
  uriTemplate = "test://template/{id}/data",
  name = "template",
  description = "A resource template with parameter substitution",
  mimeType = "application/json",
  complete = {
    id = function(value)
      local out = {}
      for _, id in ipairs(ids) do
        if id:sub(1, #value) == value then
          out[#out + 1] = id
        end
      end
      return out
    end,
  },
  read = function(uri, ctx, params)
    return json.encode({ id = params.id, templateTest = true, data = "Data for ID: " .. params.id })
  end,
}
