-- Grep: searches file contents with a regular expression, as Claude Code's Grep does
-- with ripgrep (here the grep host module does the searching, in Go). Paths are shown
-- relative to the working directory; results are paginated with head_limit and
-- offset; the result texts are the original's. Paths are quoted by path.quote
-- where a line of text cannot show them as they are.

---@type luatool.fs
local fs = require("fs")
---@type luatool.grep
local grep = require("grep")
local json = require("json")
local fail = require("files").fail
local quote, unquote = require("path").quote, require("path").unquote

local DEFAULT_HEAD_LIMIT = 250

-- The schema is the original's: counts are numbers without bounds or defaults, so
-- the defaults are applied here and validateInput refuses what is not a count.
---@class GrepInput
---@field pattern string
---@field path? string
---@field glob? string
---@field output_mode? "content"|"files_with_matches"|"count"
---@field ["-B"] number?
---@field ["-A"] number?
---@field ["-C"] number?
---@field context? number
---@field ["-n"] boolean?
---@field ["-i"] boolean?
---@field ["-o"] boolean?
---@field type? string
---@field head_limit? number
---@field offset? number
---@field multiline? boolean

-- The options that count lines or entries: each must be a whole number, not negative.
local COUNTS = { "-B", "-A", "-C", "context", "head_limit", "offset" }

-- withDefaults returns the input with the original's defaults for what it leaves out.
---@param input GrepInput
---@return GrepInput
local function withDefaults(input)
  local out = {}
  for k, v in pairs(input) do
    out[k] = v
  end
  out.output_mode = input.output_mode or "files_with_matches"
  out.head_limit = input.head_limit or DEFAULT_HEAD_LIMIT
  out.offset = input.offset or 0
  out["-n"] = input["-n"] ~= false
  out.multiline = input.multiline == true
  return out
end

---@param input GrepInput
---@param ctx luatool.Context
local function searchPath(input, ctx)
  return fs.abs(input.path or ctx.cwd, ctx.cwd)
end

-- contextLines resolves the context options: context wins over -C, which wins over
-- -B and -A.
---@param input GrepInput
---@return integer before, integer after
local function contextLines(input)
  local c = input.context or input["-C"]
  if c then
    return c, c
  end
  return input["-B"] or 0, input["-A"] or 0
end

-- applyHeadLimit returns the page of items after offset, at most limit long (0: no
-- limit), and the limit when it cut something off.
---@return table page, integer|nil appliedLimit
local function applyHeadLimit(items, limit, offset)
  local page = json.array()
  local last = #items
  if limit ~= 0 then
    last = math.min(#items, offset + limit)
  end
  for i = offset + 1, last do
    page[#page + 1] = items[i]
  end
  if limit ~= 0 and #items - offset > limit then
    return page, limit
  end
  return page, nil
end

local function formatLimitInfo(appliedLimit, appliedOffset)
  local parts = {}
  if appliedLimit then
    parts[#parts + 1] = "limit: " .. appliedLimit
  end
  if appliedOffset and appliedOffset > 0 then
    parts[#parts + 1] = "offset: " .. appliedOffset
  end
  return table.concat(parts, ", ")
end

local function plural(n, word)
  return n == 1 and word or word .. "s"
end

---@param input GrepInput
---@param ctx luatool.Context
local function searchOptions(input, ctx)
  return {
    path = searchPath(input, ctx),
    glob = input.glob,
    type = input.type,
    ignoreCase = input["-i"],
    multiline = input.multiline == true,
  }
end

-- Each mode returns the data of a result: the page of entries and how it was cut.
local modes = {}

---@param input GrepInput
---@param ctx luatool.Context
function modes.files_with_matches(input, ctx)
  local paths, err = grep.files(input.pattern, searchOptions(input, ctx))
  if not paths then
    fail(err)
  end
  local page, applied = applyHeadLimit(paths, input.head_limit, input.offset)
  for i, p in ipairs(page) do
    page[i] = quote(fs.rel(p, ctx.cwd))
  end
  return { mode = "files_with_matches", filenames = page, numFiles = #page, appliedLimit = applied }
end

---@param input GrepInput
---@param ctx luatool.Context
function modes.count(input, ctx)
  local counts, err = grep.count(input.pattern, searchOptions(input, ctx))
  if not counts then
    fail(err)
  end
  local page, applied = applyHeadLimit(counts, input.head_limit, input.offset)
  local lines, matches = {}, 0
  for i, c in ipairs(page) do
    lines[i] = quote(fs.rel(c.path, ctx.cwd)) .. ":" .. c.count
    matches = matches + c.count
  end
  return { mode = "count", content = table.concat(lines, "\n"), numFiles = #lines, numMatches = matches,
    appliedLimit = applied }
end

---@param input GrepInput
---@param ctx luatool.Context
function modes.content(input, ctx)
  local opts = searchOptions(input, ctx)
  opts.before, opts.after = contextLines(input)
  opts.onlyMatching = input["-o"] == true
  local groups, err = grep.content(input.pattern, opts)
  if not groups then
    fail(err)
  end
  -- A single file searched prints no file name, as rg does given one file.
  local single = #groups > 0 and groups[1].path == opts.path
  -- ripgrep prints "--" between groups only when context lines were asked for.
  local separate = opts.before > 0 or opts.after > 0
  local lines = {}
  for gi, group in ipairs(groups) do
    if separate and gi > 1 then
      lines[#lines + 1] = "--"
    end
    local prefix = single and "" or quote(fs.rel(group.path, ctx.cwd))
    for _, l in ipairs(group.lines) do
      local sep = l.match and ":" or "-"
      local head = single and "" or prefix .. sep
      if input["-n"] then
        lines[#lines + 1] = head .. l.line .. sep .. l.text
      else
        lines[#lines + 1] = head .. l.text
      end
    end
  end
  local page, applied = applyHeadLimit(lines, input.head_limit, input.offset)
  return { mode = "content", content = table.concat(page, "\n"), numLines = #page, appliedLimit = applied }
end

---@type luatool.Tool
local tool = {
  name = "Grep",
  userFacingName = "Search",
  searchHint = "search file contents with regex (ripgrep)",
  maxResultSizeChars = 20000,
  isReadOnly = true,
  isConcurrencySafe = true,

  prompt = [[
A content search tool in the manner of ripgrep.

Usage:
- Use Grep for searching file contents. Do not run grep or rg in a shell instead: this tool is faster and its output is shaped for you.
- Supports full regular expression syntax (Go's RE2, which ripgrep shares): "log.*Error", "function\s+\w+". Look-around and backreferences are not available.
- Narrow the search with glob ("*.js", "**/*.{ts,tsx}") or type ("js", "py", "rust", "go", ...). type is the quicker filter for standard file types.
- output_mode: "content" shows the matching lines (with -A/-B/-C context and -n line numbers), "files_with_matches" (the default) lists the files that match, most recently modified first, and "count" gives the number of matching lines in each file.
- Results are paged: head_limit (default 250; 0 for no limit) caps the entries shown, offset skips entries, so a long result can be read page by page.
- Patterns are matched line by line. Literal braces need escaping: search for "interface\{\}" to find interface{} in Go code.
- To match across lines, such as "struct \{[\s\S]*?field", set multiline: true.
- Hidden files are searched; files excluded by .gitignore, version-control directories and binary files are not.
- A path holding a newline, a tab or another character that cannot be shown is written as a double-quoted string with escapes, such as "notes\nold.txt"; pass it to Read, Edit or Write exactly as written, quotes included.
- When a search will take several rounds, plan them, and run independent searches together in one response.]],

  inputSchema = {
    type = "object",
    properties = {
      pattern = {
        type = "string",
        description = "The regular expression to search file contents for",
      },
      path = {
        type = "string",
        description = "The file or directory to search in. Defaults to the current working directory",
      },
      glob = {
        type = "string",
        description = 'Glob to filter files, such as "*.js" or "*.{ts,tsx}"; several globs may be separated by spaces or commas, and "!glob" excludes (rg --glob)',
      },
      output_mode = {
        type = "string",
        enum = { "content", "files_with_matches", "count" },
        description = 'What to show: "content" shows matching lines (with -A/-B/-C, -n and head_limit), "files_with_matches" shows file paths (with head_limit), "count" shows match counts per file (with head_limit). Defaults to "files_with_matches"',
      },
      ["-B"] = {
        type = "number",
        description = 'Lines to show before each match (rg -B). Requires output_mode "content"; ignored otherwise',
      },
      ["-A"] = {
        type = "number",
        description = 'Lines to show after each match (rg -A). Requires output_mode "content"; ignored otherwise',
      },
      ["-C"] = {
        type = "number",
        description = 'Lines to show before and after each match (rg -C). Requires output_mode "content"; ignored otherwise',
      },
      context = {
        type = "number",
        description = 'The same as -C, which it overrides. Requires output_mode "content"; ignored otherwise',
      },
      ["-n"] = {
        type = "boolean",
        description = 'Show line numbers (rg -n). Requires output_mode "content"; ignored otherwise. Defaults to true',
      },
      ["-i"] = {
        type = "boolean",
        description = "Case-insensitive search (rg -i)",
      },
      ["-o"] = {
        type = "boolean",
        description = 'Show only the matched part of each matching line, one match per line (rg -o). Requires output_mode "content"; ignored otherwise. Defaults to false',
      },
      type = {
        type = "string",
        description = "File type to search (rg --type), such as js, py, rust, go, java. Quicker than glob for standard file types",
      },
      head_limit = {
        type = "number",
        description = "Show only the first N lines or entries of the output, like | head -N, after offset. Defaults to 250; 0 means no limit (use it sparingly: large results fill the context)",
      },
      offset = {
        type = "number",
        description = "Skip the first N lines or entries before head_limit applies, like | tail -n +N+1 | head -N. Defaults to 0",
      },
      multiline = {
        type = "boolean",
        description = "Let patterns span lines, with . matching newlines (rg -U --multiline-dotall). Defaults to false",
      },
    },
    required = { "pattern" },
    additionalProperties = false,
  },

  ---@param input GrepInput
  description = function(input)
    if input.path then
      return ("Search for %s in %s"):format(input.pattern, input.path)
    end
    return "Search for " .. input.pattern
  end,

  ---@param input GrepInput
  getPath = function(input)
    return unquote(input.path or ".")
  end,

  ---@param input GrepInput
  toAutoClassifierInput = function(input)
    if input.path then
      return input.pattern .. " in " .. input.path
    end
    return input.pattern
  end,

  ---@param input GrepInput
  ---@param ctx luatool.Context
  validateInput = function(input, ctx)
    for _, name in ipairs(COUNTS) do
      local n = input[name]
      if n and (n < 0 or n ~= math.floor(n)) then
        return { result = false, errorCode = 4,
          message = ("%s must be a whole number of lines or entries, 0 or more; got %s"):format(name, tostring(n)) }
      end
    end
    local ok, bad = grep.check(input.pattern, searchOptions(input, ctx))
    if not ok then
      return { result = false, errorCode = 2, message = bad }
    end
    if input.path == nil then
      return true
    end
    local info, err, code = fs.stat(searchPath(input, ctx))
    if info then
      return true
    end
    if code == "notfound" then
      return { result = false, errorCode = 1,
        message = "Path does not exist: " .. input.path .. ". Note: your current working directory is " .. ctx.cwd .. "." }
    end
    return { result = false, errorCode = 3, message = err }
  end,

  ---@param input GrepInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    input = withDefaults(input)
    local data = modes[input.output_mode](input, ctx)
    if input.offset > 0 then
      data.appliedOffset = input.offset
    end
    return { data = data }
  end,

  -- mapResult words the result as the original does, pagination note included.
  mapResult = function(data)
    local limitInfo = formatLimitInfo(data.appliedLimit, data.appliedOffset)
    if data.mode == "content" then
      local text = data.content ~= "" and data.content or "No matches found"
      if limitInfo ~= "" then
        text = text .. "\n\n[Showing results with pagination = " .. limitInfo .. "]"
      end
      return text
    end
    if data.mode == "count" then
      local text = data.content ~= "" and data.content or "No matches found"
      local summary = ("\n\nFound %d total %s across %d %s."):format(data.numMatches,
        plural(data.numMatches, "occurrence"), data.numFiles, plural(data.numFiles, "file"))
      if limitInfo ~= "" then
        summary = summary .. " with pagination = " .. limitInfo
      end
      return text .. summary
    end
    if data.numFiles == 0 then
      return "No files found"
    end
    local head = ("Found %d %s"):format(data.numFiles, plural(data.numFiles, "file"))
    if limitInfo ~= "" then
      head = head .. " " .. limitInfo
    end
    return head .. "\n" .. table.concat(data.filenames, "\n")
  end,

  renderToolResultMessage = function(data)
    if data.mode == "content" then
      return ("Found %d %s"):format(data.numLines, plural(data.numLines, "line"))
    end
    return ("Found %d %s"):format(data.numFiles, plural(data.numFiles, "file"))
  end,
}

return tool
