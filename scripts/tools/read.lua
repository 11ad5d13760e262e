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
local notebook = require("notebook")

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

local function extension(path)
  return (path:match("%.([^./]+)$") or ""):lower()
end

local function formatSize(bytes)
  if bytes < 1024 then
    return bytes .. " bytes"
  end
  local kb = ("%.1f KB"):format(bytes / 1024)
  return (kb:gsub("%.0 KB$", " KB"))
end

local function tooLargeText(size)
  return ("File content (%s) exceeds the maximum allowed size (%s). Read it in parts with offset and limit, or search it with Grep."):format(
    formatSize(size), formatSize(MAX_SIZE_BYTES))
end

local function tooManyTokens(text)
  local tokens = math.ceil(#text / BYTES_PER_TOKEN)
  if tokens > MAX_TOKENS then
    fail(("File content (about %d tokens) exceeds the maximum of %d tokens. Read it in parts with offset and limit, or search it with Grep."):format(
      tokens, MAX_TOKENS))
  end
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
  local nb, err, isJSON = notebook.parse(raw)
  if not nb and isJSON then
    fail("Notebook file is not a Jupyter notebook: " .. err .. ".")
  elseif not nb then
    fail("Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): " .. err)
  end
  local cells = notebook.cells(nb, path)
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

---@class ReadInput
---@field file_path string
---@field offset? integer
---@field limit? integer
---@field pages? string

---@type luatool.Tool
local tool = {
  name = "Read",
  searchHint = "read text files and notebooks",
  -- Never persisted: the model asked for this text.
  maxResultSizeChars = math.huge,
  isReadOnly = true,
  isConcurrencySafe = true,

  prompt = [[
Reads a file from the local filesystem and returns its text with line numbers.

Usage:
- file_path should be an absolute path; a relative path is taken relative to the current working directory.
- Only files inside the workspace roots can be read; any other path is refused.
- By default the whole file is read. A file over 256 KB must be read in parts: offset is the first line to read (1-based) and limit the number of lines. When you know which part you need, read just that part; Grep finds it.
- Content over about 25,000 tokens is refused; read a smaller range.
- The result is numbered like cat -n: each line starts with its line number and a tab. The number and the tab are not part of the file; leave them out when you quote or edit the text.
- A Jupyter notebook (.ipynb) is shown whole as its cells, each with its outputs, whatever offset and limit say; the cell ids shown are those NotebookEdit takes.
- Otherwise this tool reads text files only. It cannot read a directory (use Glob to list files) or binary files such as images, PDFs or archives; the pages parameter (for PDFs) is not supported.
- Reading a file that does not exist is harmless: you get an error saying so.
- You can call several tools in one response. When several files may be useful, read them all at once.
- An empty file gives a warning instead of content.]],

  inputSchema = {
    type = "object",
    properties = {
      file_path = {
        type = "string",
        description = "The absolute path of the file to read",
      },
      offset = {
        type = "integer",
        minimum = 0,
        description = "The line number to start reading from (1-based). Only needed when the file is too large to read at once",
      },
      limit = {
        type = "integer",
        minimum = 1,
        description = "The number of lines to read. Only needed when the file is too large to read at once",
      },
      pages = {
        type = "string",
        description = 'Page range for PDF files, such as "1-5". PDFs are not supported by this Read tool: leave this out',
      },
    },
    required = { "file_path" },
    additionalProperties = false,
  },

  ---@param input ReadInput
  description = function(input)
    return "Read " .. input.file_path
  end,

  -- The file the call opens: fs.abs reads a quoted name (path.quote) as the name
  -- it stands for, so rules must see that name too.
  ---@param input ReadInput
  getPath = function(input)
    return unquote(input.file_path)
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
    if input.pages ~= nil then
      return { result = false, errorCode = 7,
        message = "PDF pages are not supported by this Read tool: it reads text files only. Remove the pages parameter." }
    end
    local path = fs.abs(input.file_path, ctx.cwd)
    local ext = extension(path)
    if BINARY[ext] then
      return { result = false, errorCode = 4,
        message = "This tool cannot read binary files. The file appears to be a binary ." .. ext ..
          " file. Use a tool made for that format instead." }
    end
    local info, err, code = fs.stat(path)
    if not info then
      if code == "notfound" then
        return { result = false, errorCode = 2, message = missingText(path, ctx) }
      end
      return { result = false, errorCode = 3, message = err }
    end
    if info.isDir then
      return { result = false, errorCode = 10,
        message = "Path is a directory, not a file: " .. quote(path) .. ". Use Glob to find the files in it." }
    end
    if not info.isFile then
      return { result = false, errorCode = 9, message = "Path is not a regular file: " .. quote(path) }
    end
    if input.limit == nil and info.size > MAX_SIZE_BYTES and ext ~= "ipynb" then
      return { result = false, errorCode = 6, message = tooLargeText(info.size) }
    end
    return true
  end,

  ---@param input ReadInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local path = fs.abs(input.file_path, ctx.cwd)
    if extension(path) == "ipynb" then
      return readNotebook(path, ctx)
    end
    local offset = input.offset
    if offset == nil or offset < 1 then
      offset = 1
    end
    local maxBytes = input.limit == nil and MAX_SIZE_BYTES or MAX_RANGE_BYTES
    local text, info, code = fs.lines(path, { offset = offset, limit = input.limit, maxBytes = maxBytes, record = true })
    if not text then
      if code == "notfound" then
        fail(missingText(path, ctx))
      elseif code == "toolarge" and input.limit == nil then
        local st = fs.stat(path)
        fail(tooLargeText(st and st.size or 0))
      elseif code == "toolarge" then
        fail(("The requested lines exceed %s. Read fewer lines."):format(formatSize(MAX_RANGE_BYTES)))
      end
      fail(info)
    end
    ---@cast info luatool.LinesInfo
    tooManyTokens(text)
    return {
      data = {
        type = "text",
        file = {
          filePath = path,
          content = text,
          numLines = info.numLines,
          startLine = info.startLine,
          totalLines = info.totalLines,
        },
      },
    }
  end,

  -- mapResult is what the model sees: the numbered lines, or a warning in a
  -- <system-reminder> when there are none; a notebook's cells.
  mapResult = function(data)
    if data.type == "notebook" then
      return notebook.blocks(data.file.cells)
    end
    local file = data.file
    if file.numLines > 0 then
      return numbered(file.content, file.startLine)
    end
    if file.totalLines == 0 then
      return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
    end
    return ("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>"):format(
      file.startLine, file.totalLines)
  end,

  renderToolResultMessage = function(data)
    if data.type == "notebook" then
      local cells = #data.file.cells
      return ("Read %d %s"):format(cells, cells == 1 and "cell" or "cells")
    end
    local n = data.file.numLines
    if data.file.totalLines == 0 then
      return "Read an empty file"
    end
    return ("Read %d %s"):format(n, n == 1 and "line" or "lines")
  end,
}

return tool
