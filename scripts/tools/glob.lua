-- Glob: finds files by name pattern, as Claude Code's Glob does with
-- `rg --files --glob PATTERN --sort=modified --no-ignore --hidden`: files only,
-- hidden ones included, ignore files not read, oldest first, at most 100.
-- Version-control directories (.git, ...) are skipped. A path that a line of text
-- cannot show as it is (a newline, a control character, bytes that are not UTF-8) is
-- shown quoted by path.quote, and every file tool reads that form back (fs.abs).

---@type luatool.fs
local fs = require("fs")
---@type luatool.glob
local glob = require("glob")
local json = require("json")
local lib = require("files")
local fail = lib.fail
local quote, unquote = require("path").quote, require("path").unquote

local MAX_RESULTS = 100

---@class GlobInput
---@field pattern string
---@field path? string

---@param input GlobInput
---@param ctx luatool.Context
local function searchDir(input, ctx)
  return fs.abs(input.path or ctx.cwd, ctx.cwd)
end

-- checkDir fails the call when the path given is not a directory, with the original's
-- texts; it does so while calling, not validating, so that they are not wrapped in
-- <tool_use_error>, as the original's are not.
---@param input GlobInput
---@param ctx luatool.Context
local function checkDir(input, ctx)
  if input.path == nil then
    return
  end
  local info = lib.searchedPath(input.path, searchDir(input, ctx), ctx, "Directory")
  if not info.isDir then
    fail("Path is not a directory: " .. input.path)
  end
end

---@type luatool.Tool
local tool = {
  name = "Glob",
  searchHint = "find files by name pattern or wildcard",
  maxResultSizeChars = 100000,
  isReadOnly = true,
  isConcurrencySafe = true,

  prompt = [[
Finds files by glob pattern, e.g. "**/*.go" or "cmd/*/main.lua". Lists up to 100 paths by modification time; odd names come quoted: pass them on as shown.]],

  inputSchema = {
    type = "object",
    properties = {
      pattern = {
        type = "string",
        description = "Glob that the file paths must match",
      },
      path = {
        type = "string",
        description = 'Directory to search below. Leave the field out entirely to use the current working directory; do not send placeholder strings such as "undefined" or "null" in its place. When you do give it, it has to name a directory that exists, or the call fails.',
      },
    },
    required = { "pattern" },
    additionalProperties = false,
  },

  ---@param input GlobInput
  description = function(input)
    if input.path then
      return ("Find files matching %s in %s"):format(input.pattern, input.path)
    end
    return "Find files matching " .. input.pattern
  end,

  ---@param input GlobInput
  getPath = function(input)
    return unquote(input.path or ".")
  end,

  ---@param input GlobInput
  toAutoClassifierInput = function(input)
    if input.path then
      return input.pattern .. " in " .. input.path
    end
    return input.pattern
  end,

  ---@param input GlobInput
  ---@param ctx luatool.Context
  ---@param input GlobInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    checkDir(input, ctx)
    local ok, bad, code = glob.check(input.pattern, { path = searchDir(input, ctx) })
    if not ok then
      lib.searchRejected(bad, code)
    end
    local files, total = glob.find(input.pattern, { path = searchDir(input, ctx), limit = MAX_RESULTS })
    if not files then
      fail(total)
    end
    ---@cast total integer
    local names = json.array()
    for i, f in ipairs(files) do
      names[i] = quote(fs.rel(f, ctx.cwd))
    end
    return {
      data = {
        filenames = names,
        numFiles = #names,
        truncated = total > MAX_RESULTS,
        totalFiles = total,
      },
    }
  end,

  mapResult = function(data)
    if data.numFiles == 0 then
      return "No files found"
    end
    local text = table.concat(data.filenames, "\n")
    if data.truncated then
      text = text .. ("\n(Showing %d of %d matching files; %d more are not listed. Narrow the pattern or path to see the rest.)")
        :format(data.numFiles, data.totalFiles, data.totalFiles - data.numFiles)
    end
    return text
  end,

  renderToolResultMessage = function(data)
    local n = data.numFiles
    return ("Found %d %s"):format(n, n == 1 and "file" or "files")
  end,
}

return tool
