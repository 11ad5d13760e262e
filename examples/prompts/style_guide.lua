-- The style guide of a language as a resource template: a client lists
-- style://{language} and reads style://go, style://lua, ... (Claude Code:
-- @luatool:style://go). The guides are part of the file: read only computes.
-- The language completes from the guides there are, as the user types it.

local guides = {
  go = "# Go\n\n- gofmt every file.\n- Doc comments are full sentences starting with the name.\n- Errors say where and why.\n",
  lua = "# Lua\n\n- Two spaces, no tabs.\n- local everything.\n- A module returns one table.\n",
}

---@type luatool.Resource
local resource = {
  kind = "resource",
  uriTemplate = "style://{language}",
  name = "style_guide",
  description = "The house style of a language: go or lua",
  mimeType = "text/markdown",
  complete = {
    language = function(value)
      local out = {}
      for language in pairs(guides) do
        if language:sub(1, #value) == value then
          out[#out + 1] = language
        end
      end
      table.sort(out)
      return out
    end,
  },
  read = function(uri, ctx, params)
    local guide = guides[params.language]
    if not guide then
      return nil, "no style guide for " .. params.language .. " (there are: go, lua)"
    end
    return guide
  end,
}

return resource
