-- Count: the host's own Lua tool, loaded beside the standard tools.
local fs = require("fs")

return {
  name = "Count",
  prompt = "Counts the lines and words of a text file.",
  inputSchema = {
    type = "object",
    properties = { file_path = { type = "string", description = "the file, absolute or relative to the working directory" } },
    required = { "file_path" },
  },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input)
    local text, err = fs.read(input.file_path)
    if not text then
      return nil, err
    end
    local _, lines = text:gsub("\n", "")
    local _, words = text:gsub("%S+", "")
    return ("%d lines, %d words"):format(lines, words)
  end,
}
