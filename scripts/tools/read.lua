-- Read: reads a text file and shows it to the model with line numbers, as Claude
-- Code's Read does for text files, and a Jupyter notebook (.ipynb) as its cells with
-- their outputs, as the original renders them (lib/notebook.lua; offset and limit do
-- not apply to notebooks). Images and PDFs are not supported. A UTF-16 file (with
-- its byte order mark) is shown as text: fs.lines decodes it.
--
-- Limits: without a limit, a file over 256 KB is refused (for a notebook, cells over
-- 256 KB as JSON, as in the original); any content over an estimated 25,000 tokens
-- (4 bytes a token) is refused. Unlike the original, there is
-- no "file unchanged" stub and no malware reminder.
--
-- Every successful read is recorded in the session's readFileState (the whole file's
-- hash, its mtime, offset and limit, and whether only part of it was shown), which
-- Write and Edit require before they change a file: fs.lines records it (record =
-- true) once the call has succeeded; no tool can write the record itself.

---@type luatool.fs
local fs = require("fs")
local quote, unquote = require("path").quote, require("path").unquote
local files = require("files")
local json = require("json")
-- lib/notebook.lua is required when a notebook is read, not when the tool loads: most
-- reads are of text, and compiling it was a tenth of a `luatool call Read`.
local function notebook() return require("notebook") end

local fail, missingText = files.fail, files.missingText

local MAX_SIZE_BYTES = 256 * 1024    -- refused without a limit above this size
local MAX_TOKENS = 25000             -- refused above this many estimated tokens
local BYTES_PER_TOKEN = 4            -- the estimate
local MAX_RANGE_BYTES = 8 * 1024 * 1024 -- what fs.lines may return with a limit

-- Extensions of binary formats this tool cannot show (code 4 of the original).
local BINARY = {}
for ext in ([[
  png jpg jpeg gif webp bmp ico tiff tif heic avif psd
  pdf zip gz tgz bz2 xz 7z rar tar zst jar war
  exe dll so dylib a o obj lib bin class pyc pyo wasm
  mp3 mp4 m4a wav ogg flac avi mov mkv webm
  ttf otf woff woff2 eot
  sqlite db doc docx xls xlsx ppt pptx odt
]]):gmatch("%S+") do
  BINARY[ext] = true
end

-- numberIn reads v as the original's mending of offset and limit does: a finite
-- number, or a string holding a whole number with an optional sign (white space
-- around it allowed); nil for anything else.
---@return number?
local function numberIn(v)
  if type(v) == "number" then
    return (v == v and v ~= math.huge and v ~= -math.huge) and v or nil
  elseif type(v) == "string" then
    local sign, digits = v:match("^%s*([-+]?)(%d+)%s*$")
    return digits and tonumber(digits) * (sign == "-" and -1 or 1) or nil
  end
end

-- oneItem is the value of v when v is an array of exactly one.
local function oneItem(v)
  if type(v) == "table" and json.isarray(v) and #v == 1 then
    return true, v[1]
  end
  return false
end

-- mend mends a Read input as the original does before its schema sees it, and
-- reports whether it changed anything: a one-item array for offset or limit is its
-- item; a negative offset and a limit of 0 or less (numbers or strings of them) are
-- dropped, and the whole file is read; `length` is read as limit when limit is not
-- given and it is a positive number, and dropped in any case; `description` is
-- dropped.
---@param input table
---@return boolean
local function mend(input)
  local changed = false
  for _, name in ipairs({ "offset", "limit" }) do
    local single, item = oneItem(input[name])
    if single then
      input[name], changed = item, true
    end
  end
  local offset, limit = numberIn(input.offset), numberIn(input.limit)
  if offset and offset < 0 then
    input.offset, changed = nil, true
  end
  if limit and limit <= 0 then
    input.limit, changed = nil, true
  end
  if input.length ~= nil then
    local length = numberIn(input.length)
    if input.limit == nil and length and length > 0 then
      input.limit = length
    end
    input.length, changed = nil, true
  end
  if input.description ~= nil then
    input.description, changed = nil, true
  end
  return changed
end

local function extension(path)
  return (path:match("%.([^./]+)$") or ""):lower()
end

-- formatSize words a notebook's size.
local function formatSize(bytes)
  if bytes < 1024 then
    return bytes .. " bytes"
  end
  local kb = ("%.1f KB"):format(bytes / 1024)
  return (kb:gsub("%.0 KB$", " KB"))
end

-- kilobytes words a size as the original's text-file limit does: "293KB".
local function kilobytes(bytes)
  return (("%.1f"):format(bytes / 1024):gsub("%.0$", "")) .. "KB"
end

-- The advice that ends the original's texts for content over a limit.
local OVER_LIMIT_ADVICE = "Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true — only if you genuinely need all of it or the user asked for the whole file."

local function tooLargeText(size)
  return ("File content (%s) exceeds maximum allowed size (%s). %s"):format(
    kilobytes(size), kilobytes(MAX_SIZE_BYTES), OVER_LIMIT_ADVICE)
end

local function tooManyTokens(text)
  local tokens = math.floor(#text / BYTES_PER_TOKEN)
  if tokens > MAX_TOKENS then
    fail(("File content (%d tokens) exceeds maximum allowed tokens (%d). %s"):format(tokens, MAX_TOKENS, OVER_LIMIT_ADVICE))
  end
end

-- The bytes each lead byte of UTF-8 admits next: the first continuation byte's range
-- (the others are 0x80-0xBF) and how many continuation bytes follow.
local function leadOf(b)
  if b >= 0xC2 and b <= 0xDF then return 0x80, 0xBF, 1 end
  if b == 0xE0 then return 0xA0, 0xBF, 2 end
  if b == 0xED then return 0x80, 0x9F, 2 end
  if b >= 0xE1 and b <= 0xEF then return 0x80, 0xBF, 2 end
  if b == 0xF0 then return 0x90, 0xBF, 3 end
  if b >= 0xF1 and b <= 0xF3 then return 0x80, 0xBF, 3 end
  if b == 0xF4 then return 0x80, 0x8F, 3 end
  return nil
end

-- fixRun replaces the invalid parts of a run of non-ASCII bytes, one U+FFFD for each
-- maximal invalid subpart, as the original's UTF-8 decoding does (so "\xff\xfe" is
-- two replacement characters, not one).
local function fixRun(run)
  local out, i, n = {}, 1, #run
  while i <= n do
    local lo, hi, need = leadOf(run:byte(i))
    local j = i + 1
    local ok = lo ~= nil
    for k = 1, need or 0 do
      local c = run:byte(j)
      local first = k == 1
      if not c or c < (first and lo or 0x80) or c > (first and hi or 0xBF) then
        ok = false
        break
      end
      j = j + 1
    end
    out[#out + 1] = ok and run:sub(i, j - 1) or "\239\191\189"
    i = j
  end
  return table.concat(out)
end

-- validText is text with each invalid UTF-8 sequence replaced as fixRun does.
local function validText(text)
  if not text:find("[\128-\255]") then
    return text
  end
  return (text:gsub("[\128-\255]+", fixRun))
end

-- validPages tells whether pages names one page ("3") or one range ("1-5") of
-- 1-based pages, the forms the original accepts.
local function validPages(pages)
  local a, b = pages:match("^(%d+)%-(%d+)$")
  if a then
    return tonumber(a) >= 1 and tonumber(b) >= tonumber(a)
  end
  local one = pages:match("^%d+$")
  return one ~= nil and tonumber(one) >= 1
end

local function notebookTooLarge(size, path)
  return ("Notebook content (%s) exceeds the maximum allowed size (%s). Read parts of it with Bash and jq: cat %s | jq '.cells[:20]' shows the first 20 cells, jq '.cells | length' counts them."):format(
    formatSize(size), formatSize(MAX_SIZE_BYTES), quote(path))
end

-- readNotebook reads a notebook whole, records it as read, and returns its cells as
-- Read shows them.
local function readNotebook(path, ctx)
  local raw, info, code = fs.read(path, { maxBytes = MAX_RANGE_BYTES, record = true })
  if not raw then
    if code == "toolarge" then
      local st = fs.stat(path)
      fail(notebookTooLarge(st and st.size or 0, path))
    end
    fail(code == "notfound" and missingText(path, ctx) or info)
  end
  if info.encoding == "utf8bom" then
    raw = "\239\187\191" .. raw -- the original parses the bytes as stored, mark and all
  end
  local nb, err, isJSON = notebook().parse(raw)
  if not nb and isJSON then
    fail(err)
  elseif not nb then
    fail("Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): " .. err)
  end
  local cells = notebook().cells(nb, path)
  local shown = json.encode(cells)
  if #shown > MAX_SIZE_BYTES then
    fail(notebookTooLarge(#shown, path))
  end
  tooManyTokens(shown)
  return { data = { type = "notebook", file = { filePath = path, cells = cells } } }
end

-- numbered renders text as cat -n does, compactly: "N\tline".
local function numbered(text, first)
  local out, pos, n = {}, 1, first
  while true do
    local nl = text:find("\n", pos, true)
    out[#out + 1] = n .. "\t" .. text:sub(pos, (nl or 0) - 1)
    if not nl then
      break
    end
    pos, n = nl + 1, n + 1
  end
  return table.concat(out, "\n")
end

-- linesText is what Read shows of a text file: its numbered lines; the empty line
-- the range reached; or, with no lines, a warning in a <system-reminder>. A file
-- with no bytes has one empty line, as in the original.
---@param file table data.file of a text read
local function linesText(file)
  if file.content ~= "" then
    return numbered(file.content, file.startLine)
  elseif file.numLines >= 1 and file.totalLines > 1 then
    return numbered("", file.startLine)
  elseif file.numLines >= 1 or file.totalLines == 0 then
    return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
  end
  return ("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>"):format(
    file.startLine, file.totalLines)
end

-- dirShown is how the original names a directory given to Read: an absolute path
-- that ends in "/" keeps that slash, and gains one more.
---@param given string file_path as the model gave it
---@param path string the absolute path
local function dirShown(given, path)
  if given:match("^/.*/$") and path ~= "/" then
    return quote(path) .. "//"
  end
  return quote(path)
end

---@class ReadInput
---@field file_path string
---@field offset? integer
---@field limit? integer
---@field pages? string
---@field allow_large? boolean

---@type luatool.Tool
local tool = {
  name = "Read",
  searchHint = "read text files and notebooks",
  -- Never persisted: the model asked for this text.
  maxResultSizeChars = math.huge,
  isReadOnly = true,
  isConcurrencySafe = true,

  prompt = [[
Reads a text file from the local filesystem and returns it with numbered lines.

- Pass `file_path` as an absolute path (a relative one starts from the working directory); only files under the workspace roots open.
- Without `offset` and `limit` the whole file comes back; over 256 KB, or about 25,000 tokens, it is refused unless you pick a range or set `allow_large`.
- If you know which lines you need, ask for just those; Grep can locate them.
- Each line is prefixed with its number (from 1) and a tab, like `cat -n`; the prefix is not file content.
- A notebook (.ipynb) is shown as cells with their outputs. Images, PDFs and other binary files are refused.
- Directories and missing files give an error, an empty file a warning, not content.
- No need to read a file again after Edit or Write succeed: they fail when a change cannot be made.]],

  inputSchema = {
    type = "object",
    properties = {
      file_path = {
        type = "string",
        description = "Absolute path of the file to open",
      },
      offset = {
        type = "integer",
        minimum = 0,
        maximum = 9007199254740991,
        description = "Line to begin at, counting from 1. Give it only when the file is too big to take in one read",
      },
      limit = {
        type = "integer",
        exclusiveMinimum = 0,
        maximum = 9007199254740991,
        description = "How many lines to return from offset on. Give it only when the file is too big to take in one read",
      },
      pages = {
        type = "string",
        description = 'Page range of a PDF, one page ("7") or one span ("2-4"). This Read cannot open PDFs at all, so leave it out',
      },
      allow_large = {
        type = "boolean",
        description = "Set to true to lift the size and token limits for a text file, or for a line range of one, up to luatool's cap of 8 MB. Keep it for when you truly need the entire content or the user wants the complete file; otherwise take it in pieces with offset and limit, or look it up with Grep",
      },
    },
    required = { "file_path" },
    additionalProperties = false,
  },

  -- The original mends these inputs, without a note, and validates what it mended
  -- (so a parameter it does not know is still refused).
  ---@param input table
  coerceInput = function(input)
    if mend(input) then
      return input
    end
  end,

  ---@param input ReadInput
  description = function(input)
    return "Read " .. input.file_path
  end,

  -- The file the call opens: fs.abs reads a quoted name (path.quote) as the name
  -- it stands for, so rules must see that name too.
  ---@param input ReadInput
  getPath = function(input)
    return unquote(files.given(input.file_path))
  end,

  ---@param input ReadInput
  toAutoClassifierInput = function(input)
    return input.file_path
  end,

  -- validateInput refuses what the call cannot serve, so the model gets the reason
  -- inside <tool_use_error> with no Lua position.
  ---@param input ReadInput
  ---@param ctx luatool.Context
  validateInput = function(input, ctx)
    if input.pages ~= nil and not validPages(input.pages) then
      return { result = false, errorCode = 7,
        message = ('Invalid pages parameter: "%s". Give one page ("3") or one range ("1-5"), not a list. To read several pages or ranges, read each one separately. Pages are 1-indexed.'):format(input.pages) }
    end
    local path = fs.abs(files.given(input.file_path), ctx.cwd)
    local ext = extension(path)
    if BINARY[ext] then
      return { result = false, errorCode = 4,
        message = "This tool cannot read binary files. The file appears to be a binary ." .. ext ..
          " file. Use a skill for this file type if one is available, or a shell command or script that can read the format." }
    end
    return true
  end,

  ---@param input ReadInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local path = fs.abs(files.given(input.file_path), ctx.cwd)
    local info, err, code = fs.stat(path)
    if not info then
      if code == "notfound" and files.underFile(path) then
        fail(files.notDirText("open", path))
      end
      fail(code == "notfound" and missingText(path, ctx) or err)
    elseif info.isDir then
      fail("EISDIR: illegal operation on a directory, read '" .. dirShown(files.given(input.file_path), path) .. "'")
    elseif not info.isFile then
      fail("Path is not a regular file: " .. quote(path))
    end
    if extension(path) == "ipynb" then
      return readNotebook(path, ctx)
    end
    local large = input.allow_large == true
    if input.limit == nil and info.size > MAX_SIZE_BYTES and not large then
      fail(tooLargeText(info.size))
    end
    local offset = input.offset
    if offset == nil or offset < 1 then
      offset = 1
    end
    local maxBytes = (input.limit == nil and not large) and MAX_SIZE_BYTES or MAX_RANGE_BYTES
    local text, linesInfo, lcode = fs.lines(path, { offset = offset, limit = input.limit, maxBytes = maxBytes, record = true })
    if not text then
      if lcode == "notfound" then
        fail(missingText(path, ctx))
      elseif lcode == "toolarge" and maxBytes == MAX_SIZE_BYTES then
        local st = fs.stat(path)
        fail(tooLargeText(st and st.size or 0))
      elseif lcode == "toolarge" then
        fail(("The requested lines exceed %s. Read fewer lines."):format(formatSize(MAX_RANGE_BYTES)))
      end
      fail(linesInfo)
    end
    ---@cast linesInfo luatool.LinesInfo
    -- The original counts the empty line after a final newline as a line of its own,
    -- and shows it when the range reaches it.
    local total, shown = linesInfo.totalLines, linesInfo.numLines
    if total == 0 then -- a file with no bytes is one empty line
      total, shown = 1, offset == 1 and 1 or 0
    end
    if linesInfo.endsWithNewline then
      total = total + 1
      if offset <= total and (input.limit == nil or offset + input.limit > total) then
        text = shown > 0 and text .. "\n" or ""
        shown = shown + 1
      end
    end
    text = validText(text)
    if not large then
      tooManyTokens(text)
    end
    return {
      data = {
        type = "text",
        file = {
          filePath = path,
          content = text,
          numLines = shown,
          startLine = linesInfo.startLine,
          totalLines = total,
          notText = linesInfo.notText,
        },
      },
    }
  end,

  -- mapResult is what the model sees: the numbered lines, or a warning in a
  -- <system-reminder> when there are none; a notebook's cells.
  mapResult = function(data)
    if data.type == "notebook" then
      return notebook().blocks(data.file.cells)
    end
    local file = data.file
    return linesText(file) .. (file.notText and files.notTextNote(file.notText) or "")
  end,

  renderToolResultMessage = function(data)
    if data.type == "notebook" then
      local cells = #data.file.cells
      return ("Read %d %s"):format(cells, cells == 1 and "cell" or "cells")
    end
    local n = data.file.numLines
    if data.file.content == "" and data.file.totalLines <= 1 then
      return "Read an empty file"
    end
    return ("Read %d %s"):format(n, n == 1 and "line" or "lines")
  end,
}

return tool
