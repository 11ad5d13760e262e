-- Edit: replaces exact text in a file, as Claude Code's Edit does. The file must have
-- been read first, in full or in part (ctx.readFileState), and not changed since (its
-- content is compared); fs.write checks it again as it writes, under a lock every luatool
-- process takes (ifRead), so no update is lost. Matching forgives curly quotes in
-- the file (and keeps their style in new_string); replacement is literal; a CRLF file
-- stays CRLF. An empty old_string creates a file, or fills an empty one. A file
-- keeps its encoding (fs.read decodes UTF-16 and a UTF-8 byte order mark, fs.write
-- encodes back); a new file is UTF-8.

---@type luatool.fs
local fs = require("fs")
local quote, unquote = require("path").quote, require("path").unquote
local files = require("files")
local uescape = require("uescape")

local fail, missingText, stale, isCRLF = files.fail, files.missingText, files.stale, files.isCRLF
local NOT_READ, MODIFIED, UNEXPECTED = files.NOT_READ, files.MODIFIED, files.UNEXPECTED
local EXISTS = "Cannot create new file - file already exists."

-- The curly quotes, in UTF-8.
local LEFT_SINGLE, RIGHT_SINGLE = "\226\128\152", "\226\128\153"
local LEFT_DOUBLE, RIGHT_DOUBLE = "\226\128\156", "\226\128\157"
local EM_DASH, EN_DASH = "\226\128\148", "\226\128\147"

-- The old names of Edit's parameters the original reads, as {name, old name}.
local ALIASES = { { "file_path", "path" }, { "old_string", "old_str" }, { "new_string", "new_str" } }

-- mend mends an Edit input as the original does before its schema sees it, and
-- reports whether it changed anything: `replace_name` is dropped, and read as
-- replace_all (true for true or "true") when that is not given; an old name holding
-- a string is read as its parameter when that is not given.
---@param input table
---@return boolean
local function mend(input)
  local changed = false
  if input.replace_name ~= nil then
    if input.replace_all == nil then
      input.replace_all = input.replace_name == true or input.replace_name == "true"
    end
    input.replace_name, changed = nil, true
  end
  for _, alias in ipairs(ALIASES) do
    local name, old = alias[1], alias[2]
    if input[name] == nil and type(input[old]) == "string" then
      input[name], input[old], changed = input[old], nil, true
    end
  end
  return changed
end

local function notFoundText(old)
  local text = "String to replace not found in file.\nString: " .. old
  if uescape.hasEscape(old) or uescape.hasWide(old) then
    text = text .. "\n(note: Edit also tried swapping \\uXXXX escapes and their characters; neither form matched, so the mismatch is likely elsewhere in old_string. Re-read the file and copy the exact surrounding text.)"
  end
  return text
end

local function tooManyText(n, old)
  return ("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s"):format(n, old)
end

local function isBlank(s)
  return s:match("^%s*$") ~= nil
end

-- toLF makes every line end in "\n", as the text is matched.
local function toLF(s)
  return (s:gsub("\r\n", "\n"))
end

-- normalizeQuotes turns curly quotes into straight ones.
local function normalizeQuotes(s)
  return (s:gsub("\226\128[\152\153]", "'"):gsub("\226\128[\156\157]", '"'))
end

-- curlyAt is the length of the curly quote starting at byte i of s, or nil.
local function curlyAt(s, i)
  local q = s:sub(i, i + 2)
  if q == LEFT_SINGLE or q == RIGHT_SINGLE or q == LEFT_DOUBLE or q == RIGHT_DOUBLE then
    return 3
  end
  return nil
end

-- find is string.find without patterns.
local function find(s, sub, init)
  return s:find(sub, init or 1, true)
end

-- findQuoted returns the text of content that search stands for once curly quotes
-- are straightened in both, or nil.
local function findQuoted(content, search)
  local start = find(normalizeQuotes(content), normalizeQuotes(search))
  if not start then
    return nil
  end
  -- Map the normalized positions back: a curly quote is three bytes, one normalized.
  local stop = start + #normalizeQuotes(search) -- first normalized byte after the match
  local pos, npos, first = 1, 1, nil
  while npos < stop do
    if npos == start then
      first = pos
    end
    pos, npos = pos + (curlyAt(content, pos) or 1), npos + 1
  end
  return content:sub(first, pos - 1)
end

-- findActual returns the text of content that search stands for, in the original's
-- order of tries: search itself; the same text with the file's curly quotes where
-- search has straight ones; search with its \uXXXX escapes decoded (how = "decoded");
-- search with its wide characters as the file's escapes (how = "escaped").
---@return string? actual
---@return string? how
local function findActual(content, search)
  if find(content, search) then
    return search
  end
  local quoted = findQuoted(content, search)
  if quoted then
    return quoted
  end
  if uescape.hasEscape(search) then
    local decoded = uescape.decode(search)
    if decoded ~= search and find(content, decoded) then
      return decoded, "decoded"
    end
  end
  if uescape.hasWide(search) then
    local escaped = uescape.findEscaped(search, content)
    if escaped then
      return escaped, "escaped"
    end
  end
  return nil
end

-- inFileForm writes new as the file writes what old matched: with escapes decoded,
-- or with wide characters escaped, as findActual found it.
local function inFileForm(old, actual, how, new)
  if how == "decoded" then
    return uescape.decode(new)
  elseif how == "escaped" then
    return uescape.escapeLike(old, actual, new)
  end
  return new
end

local function isLetter(c)
  return c ~= "" and (c:match("%a") ~= nil or c:byte() >= 128)
end

-- preserveQuoteStyle gives new the curly quotes of the file when matching had to
-- straighten them: opening quotes after a space, an opening bracket or a dash, an
-- apostrophe between letters, closing quotes elsewhere.
local function preserveQuoteStyle(old, actual, new)
  if old == actual then
    return new
  end
  local single = find(actual, LEFT_SINGLE) or find(actual, RIGHT_SINGLE)
  local double = find(actual, LEFT_DOUBLE) or find(actual, RIGHT_DOUBLE)
  if not single and not double then
    return new
  end
  local out = {}
  for i = 1, #new do
    local c = new:sub(i, i)
    local prev = new:sub(i - 1, i - 1)
    local opening = i == 1 or prev:match("[ \t\n\r%(%[{]") ~= nil
      or (i > 3 and (new:sub(i - 3, i - 1) == EM_DASH or new:sub(i - 3, i - 1) == EN_DASH))
    if c == '"' and double then
      c = opening and LEFT_DOUBLE or RIGHT_DOUBLE
    elseif c == "'" and single then
      if isLetter(prev) and isLetter(new:sub(i + 1, i + 1)) then
        c = RIGHT_SINGLE
      else
        c = opening and LEFT_SINGLE or RIGHT_SINGLE
      end
    end
    out[#out + 1] = c
  end
  return table.concat(out)
end

-- count is the number of non-overlapping occurrences of sub in s.
local function count(s, sub)
  local n, i = 0, 1
  while true do
    local _, e = find(s, sub, i)
    if not e then
      return n
    end
    n, i = n + 1, e + 1
  end
end

-- replace replaces the first occurrence of old in s by new, or every one when all
-- is set. new is taken literally.
local function replace(s, old, new, all)
  local out, i = {}, 1
  while true do
    local b, e = find(s, old, i)
    if not b then
      break
    end
    out[#out + 1] = s:sub(i, b - 1)
    out[#out + 1] = new
    i = e + 1
    if not all then
      break
    end
  end
  out[#out + 1] = s:sub(i)
  return table.concat(out)
end

---@class EditInput
---@field file_path string
---@field old_string string
---@field new_string string
---@field replace_all boolean

---@type luatool.Tool
local tool = {
  name = "Edit",
  searchHint = "modify file contents in place",
  maxResultSizeChars = 100000,
  isReadOnly = false,
  isConcurrencySafe = false,

  prompt = [[
Replaces one exact piece of text in a file with another.

- Read the file in this session first (the lines around the change will do) and let nothing change it since, or the edit is refused.
- `old_string` must occur exactly as written, indentation included, and only once; leave out the number-and-tab prefix Read adds.
- `replace_all` changes every occurrence. An empty `old_string` creates a new file. For .ipynb files use NotebookEdit.]],

  inputSchema = {
    type = "object",
    properties = {
      file_path = {
        type = "string",
        description = "Absolute path of the file to change",
      },
      old_string = {
        type = "string",
        description = "Exact text to find",
      },
      new_string = {
        type = "string",
        description = "Text to put in its place; it has to differ from old_string",
      },
      replace_all = {
        type = "boolean",
        default = false,
        description = "Change every match of old_string, not just one (default false)",
      },
    },
    required = { "file_path", "old_string", "new_string" },
    additionalProperties = false,
  },

  -- The original mends these inputs, without a note, and validates what it mended
  -- (so a parameter it does not know is still refused). The path the rules check
  -- (getPath) is the mended file_path, the one the call opens.
  ---@param input table
  coerceInput = function(input)
    if mend(input) then
      return input
    end
  end,

  ---@param input EditInput
  description = function(input)
    return "Edit " .. input.file_path
  end,

  -- The file the call opens: fs.abs reads a quoted name (path.quote) as the name
  -- it stands for, so rules must see that name too.
  ---@param input EditInput
  getPath = function(input)
    return unquote(files.given(input.file_path))
  end,

  ---@param input EditInput
  toAutoClassifierInput = function(input)
    return input.file_path .. ": " .. input.new_string
  end,

  -- validateInput checks what can be checked before asking permission, with the
  -- original's error codes.
  ---@param input EditInput
  ---@param ctx luatool.Context
  validateInput = function(input, ctx)
    local old = input.old_string
    if old == input.new_string then
      return { result = false, errorCode = 1,
        message = "No changes to make: old_string and new_string are exactly the same." }
    end
    local path = fs.abs(files.given(input.file_path), ctx.cwd)
    local raw, info, code = fs.read(path)
    if not raw then
      if code == "notfound" and files.underFile(path) then
        return { result = false, errorCode = 4, message = "Error calling tool (Edit): " .. files.notDirText("stat", path) }
      elseif code == "notfound" then
        if old == "" then
          return true
        end
        return { result = false, errorCode = 4, message = missingText(path, ctx) }
      elseif code == "isdir" then
        return { result = false, errorCode = 4, message = "Error calling tool (Edit): EISDIR: illegal operation on a directory, read" }
      end
      return { result = false, errorCode = code == "toolarge" and 10 or 4, message = info }
    end
    if old == "" then
      if not isBlank(raw) then
        return { result = false, errorCode = 3, message = EXISTS }
      end
      return true
    end
    if path:lower():match("%.ipynb$") then
      return { result = false, errorCode = 5,
        message = "File is a Jupyter Notebook. Use the NotebookEdit to edit this file." }
    end
    if info.notText then
      return { result = false, errorCode = 15, message = files.notTextRefusal(info.notText) }
    end
    -- Lines the model was shown will do, as in the original: old_string must match
    -- exactly, and a large file could not be edited otherwise.
    local entry = ctx.readFileState:get(path)
    if not entry then
      return { result = false, errorCode = 6, message = NOT_READ }
    end
    if stale(entry, info) then
      return { result = false, errorCode = 7, message = MODIFIED }
    end
    local content = toLF(raw)
    local actual = findActual(content, old)
    if not actual then
      return { result = false, errorCode = 8, message = notFoundText(old) }
    end
    local n = count(content, actual)
    if n > 1 and not input.replace_all then
      return { result = false, errorCode = 9, message = tooManyText(n, old) }
    end
    return true
  end,

  ---@param input EditInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local path = fs.abs(files.given(input.file_path), ctx.cwd)
    local old, new = input.old_string, input.new_string
    local opts = { mkdirs = true }
    local content, crlf = "", false
    -- Whether the model knows the whole file once the edit is made: it wrote all of
    -- a new file, or had read all of the old one.
    local current = true
    local raw, info, code = fs.read(path)
    if raw then
      if info.notText then
        fail(files.notTextRefusal(info.notText))
      end
      if old == "" then
        if not isBlank(raw) then
          fail(EXISTS)
        end
      else
        local entry = ctx.readFileState:get(path)
        if not entry or stale(entry, info) then
          fail(UNEXPECTED)
        end
        current = not entry.partial
        -- The file must still be what the model read (in part); fs.write checks it
        -- under the lock, as it writes.
        opts.ifRead = "part"
      end
      -- fs.write refuses if the file changes after this read: the check and the
      -- write are one step.
      opts.ifHash = info.hash
      opts.encoding = info.encoding
      crlf = isCRLF(raw)
      content = toLF(raw)
    elseif code == "notfound" then
      if old ~= "" then
        fail(missingText(path, ctx))
      end
      opts.ifAbsent = true
    else
      fail(info)
    end

    local updated = new
    if old ~= "" then
      local actual, how = findActual(content, old)
      if not actual then
        fail(notFoundText(old))
      end
      local n = count(content, actual)
      if n > 1 and not input.replace_all then
        fail(tooManyText(n, old))
      end
      local replacement = inFileForm(old, actual, how, preserveQuoteStyle(old, actual, new))
      -- Deleting text also deletes the line break after it.
      if replacement == "" and actual:sub(-1) ~= "\n" and find(content, actual .. "\n") then
        actual = actual .. "\n"
      end
      updated = replace(content, actual, replacement, input.replace_all)
    end
    if crlf then
      updated = toLF(updated):gsub("\n", "\r\n")
    end

    files.refuseLink(path)
    local written, err, wcode = fs.write(path, updated, opts)
    if not written then
      if wcode == "stale" or wcode == "exists" or wcode == "notread" then
        fail(UNEXPECTED)
      end
      fail(err)
    end
    return {
      data = {
        -- The path as the model gave it, as the original reports it.
        filePath = input.file_path,
        oldString = old,
        newString = new,
        replaceAll = input.replace_all,
        created = written.created,
        fileStateCurrent = current,
      },
    }
  end,

  -- The original tells the model its view of the file is current only when it is:
  -- after an edit of a file it had read in part, it is not.
  mapResult = function(data)
    local suffix = data.fileStateCurrent and files.CURRENT or ""
    if data.replaceAll then
      return "The file " .. quote(data.filePath) .. " has been updated. All occurrences were successfully replaced." .. suffix
    end
    return "The file " .. quote(data.filePath) .. " has been updated successfully." .. suffix
  end,

  renderToolResultMessage = function(data)
    return (data.created and "Created " or "Updated ") .. quote(data.filePath)
  end,
}

return tool
