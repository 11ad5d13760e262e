-- Write: creates a file or replaces its content, as Claude Code's Write does. An
-- existing file must have been read in full first (ctx.readFileState) and not
-- changed since (its content is compared); fs.write checks it again as it writes,
-- under a lock every luatool process takes (ifRead), so no update is lost. The
-- content is written as given, in the existing file's encoding (UTF-16 stays
-- UTF-16, a UTF-8 byte order mark stays) or as UTF-8 for a new file; missing parent
-- directories are created.

---@type luatool.fs
local fs = require("fs")
local quote, unquote = require("path").quote, require("path").unquote
local files = require("files")

local fail = files.fail
local NOT_READ, MODIFIED, UNEXPECTED = files.NOT_READ, files.MODIFIED, files.UNEXPECTED

-- What the original's Write mends, in its order: an old name read as file_path, the
-- names read as content (when only one of them is given), and the names dropped
-- when they repeat a parameter's value.
local TEXT_NAMES = { "file_text", "file_content" }
local REPEATS = {
  { "file_path", { "path", "file" } },
  { "content", { "file_text", "file_content", "new_text", "body", "text", "contents" } },
}
local NOTE = "Note: Write's parameters are named `file_path` and `content`. "

-- onlyGiven is the one name of names that input holds, or nil when it holds none or
-- several.
---@param input table
---@param names string[]
---@return string?
local function onlyGiven(input, names)
  local found
  for _, name in ipairs(names) do
    if input[name] ~= nil then
      if found then
        return nil
      end
      found = name
    end
  end
  return found
end

-- mend mends a Write input as the original does, and returns the sentences that
-- say what it did ({} for nothing).
---@param input table
---@return string[]
local function mend(input)
  local said = {}
  if input.file_path == nil and type(input.path) == "string" then
    input.file_path, input.path = input.path, nil
    said[#said + 1] = "`path` was read as `file_path`."
  end
  local text = onlyGiven(input, TEXT_NAMES)
  if text and input.content == nil and type(input[text]) == "string" then
    input.content, input[text] = input[text], nil
    said[#said + 1] = ("`%s` was read as `content`."):format(text)
  end
  if input.description ~= nil then
    input.description = nil
    said[#said + 1] = "`description` was ignored."
  end
  if input.command == "create" then
    input.command = nil
    said[#said + 1] = "`command` was ignored."
  end
  for _, repeat_ in ipairs(REPEATS) do
    local name, others = repeat_[1], repeat_[2]
    for _, other in ipairs(others) do
      if type(input[name]) == "string" and input[other] == input[name] then
        input[other] = nil
        said[#said + 1] = ("`%s` repeated `%s` and was ignored."):format(other, name)
      end
    end
  end
  return said
end

-- isWriteInput reports whether input is what Write's schema takes: file_path and
-- content, both strings, and nothing else.
---@param input table
---@return boolean
local function isWriteInput(input)
  for name, value in pairs(input) do
    if (name ~= "file_path" and name ~= "content") or type(value) ~= "string" then
      return false
    end
  end
  return input.file_path ~= nil and input.content ~= nil
end

---@class WriteInput
---@field file_path string
---@field content string

---@type luatool.Tool
local tool = {
  name = "Write",
  searchHint = "create or overwrite files",
  maxResultSizeChars = 100000,
  isReadOnly = false,
  isConcurrencySafe = false,

  prompt = [[
Creates a file on the local filesystem, or replaces all of an existing one.

Use it for new files and full rewrites. An existing file must be read in full with Read first and be unchanged since, or the call fails. Missing folders are created. For partial edits, use Edit.]],

  inputSchema = {
    type = "object",
    properties = {
      file_path = {
        type = "string",
        description = "Where to write: an absolute path (a relative one starts from the working directory)",
      },
      content = {
        type = "string",
        description = "Full text the file will hold",
      },
    },
    required = { "file_path", "content" },
    additionalProperties = false,
  },

  -- The original mends a sloppy input only when what it mends is then valid (else
  -- the schema judges the input as sent), and the result ends with a note of what it
  -- did. The path the rules check (getPath) is the mended file_path, the one the
  -- call opens.
  ---@param input table
  coerceInput = function(input)
    local said = mend(input)
    if #said > 0 and isWriteInput(input) then
      return input, NOTE .. table.concat(said, " ")
    end
  end,

  ---@param input WriteInput
  description = function(input)
    return "Write " .. input.file_path
  end,

  -- The file the call opens: fs.abs reads a quoted name (path.quote) as the name
  -- it stands for, so rules must see that name too.
  ---@param input WriteInput
  getPath = function(input)
    return unquote(files.given(input.file_path))
  end,

  ---@param input WriteInput
  toAutoClassifierInput = function(input)
    return input.file_path .. ": " .. input.content
  end,

  -- validateInput: a missing file is valid; an existing one must have been read in
  -- full (code 2) and not modified since (code 3).
  ---@param input WriteInput
  ---@param ctx luatool.Context
  validateInput = function(input, ctx)
    local path = fs.abs(files.given(input.file_path), ctx.cwd)
    local info, err, code = fs.stat(path)
    if not info then
      if code == "notfound" and files.underFile(path) then
        return { result = false, errorCode = 1, message = "Error calling tool (Write): " .. files.notDirText("stat", path) }
      elseif code == "notfound" then
        return true
      end
      return { result = false, errorCode = 1, message = err }
    end
    if info.isDir then
      return { result = false, errorCode = 17, message = quote(input.file_path) ..
        " is a directory, not a file. To create a file inside it, include the file name in file_path." }
    end
    local entry = ctx.readFileState:get(path)
    if not entry or entry.partial then
      return { result = false, errorCode = 2, message = NOT_READ }
    end
    -- Newer than the read, as the original checks; or, though not newer, another
    -- content (a change that kept the modification time).
    local _, current = fs.read(path)
    if info.mtime > entry.mtime or not current or files.stale(entry, current) then
      return { result = false, errorCode = 3, message = MODIFIED }
    end
    return true
  end,

  ---@param input WriteInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local path = fs.abs(files.given(input.file_path), ctx.cwd)
    local opts = { mkdirs = true }
    local old, info, code = fs.read(path)
    if old then
      -- A binary file, or text in an encoding fs.write would not keep, is refused.
      if info.notText then
        fail(files.notTextRefusal(info.notText))
      end
      -- The file must be what the model read; fs.write checks it under the lock.
      opts.ifRead = true
      opts.encoding = info.encoding
    elseif code == "notfound" then
      opts.ifAbsent = true
    else
      fail(info)
    end
    files.refuseLink(path)
    local written, err, wcode = fs.write(path, input.content, opts)
    if not written then
      if wcode == "notread" then
        fail(NOT_READ)
      elseif wcode == "stale" or wcode == "exists" then
        fail(UNEXPECTED)
      end
      fail(err)
    end
    return {
      data = {
        type = written.created and "create" or "update",
        -- The path as the model gave it, as the original reports it.
        filePath = input.file_path,
        content = input.content,
      },
    }
  end,

  mapResult = function(data)
    if data.type == "create" then
      return "File created successfully at: " .. quote(data.filePath) .. files.CURRENT
    end
    return "The file " .. quote(data.filePath) .. " has been updated successfully." .. files.CURRENT
  end,

  renderToolResultMessage = function(data)
    local n = select(2, data.content:gsub("\n", "")) + ((data.content ~= "" and data.content:sub(-1) ~= "\n") and 1 or 0)
    return ("%s %d %s to %s"):format(data.type == "create" and "Wrote" or "Updated", n, n == 1 and "line" or "lines", quote(data.filePath))
  end,
}

return tool
