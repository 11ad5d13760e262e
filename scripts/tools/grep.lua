-- Grep: searches file contents with a regular expression, as Claude Code's Grep does
-- with ripgrep (here the grep host module does the searching, in Go, reading the
-- pattern in ripgrep's dialect). Path errors and queries ripgrep refuses fail the
-- call with the original's texts, not wrapped in <tool_use_error>. Paths are shown
-- relative to the working directory; results are paginated with head_limit and
-- offset; the result texts are the original's. Paths are quoted by path.quote
-- where a line of text cannot show them as they are.

---@type luatool.fs
local fs = require("fs")
---@type luatool.grep
local grep = require("grep")
local json = require("json")
local files = require("files")
local fail = files.fail
local quote, unquote = require("path").quote, require("path").unquote
local mend = require("mend")

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

-- What the original says of a head_limit or offset that is not a whole number of 0
-- or more (it refuses these two itself, and passes the context counts on).
local PAGING_ERRORS = {
  head_limit = "head_limit must be a whole number of 0 or more, got %s. Pass 0 for unlimited.",
  offset = "offset must be a whole number of 0 or more, got %s.",
}

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

-- emptyPage is the text of content or count mode with nothing to show: an offset
-- past the last entry says so.
local function emptyPage(data, anyFound)
  if data.appliedOffset and anyFound then
    return "No entries at this offset"
  end
  return "No matches found"
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

-- checkQuery fails the call on a path that does not exist and on a query ripgrep
-- refuses, with the original's texts. It runs while calling, not validating, so that
-- they are not wrapped in <tool_use_error>, as the original's are not.
---@param input GrepInput
---@param ctx luatool.Context
local function checkQuery(input, ctx)
  if input.path ~= nil then
    files.searchedPath(input.path, searchPath(input, ctx), ctx, "Path")
  end
  local ok, bad, code = grep.check(input.pattern, searchOptions(input, ctx))
  if not ok then
    files.searchRejected(bad, code)
  end
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
  return { mode = "files_with_matches", filenames = page, numFiles = #page, totalFiles = #paths,
    appliedLimit = applied }
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
  end
  -- The summary counts every file and match, not only the page's.
  for _, c in ipairs(counts) do
    matches = matches + c.count
  end
  return { mode = "count", content = table.concat(lines, "\n"), numFiles = #counts, numMatches = matches,
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
      if l.note then
        lines[#lines + 1] = (single and "" or prefix .. ":") .. l.text
      elseif input["-n"] then
        lines[#lines + 1] = head .. l.line .. sep .. l.text
      else
        lines[#lines + 1] = head .. l.text
      end
    end
  end
  local page, applied = applyHeadLimit(lines, input.head_limit, input.offset)
  return { mode = "content", content = table.concat(page, "\n"), numLines = #page, totalLines = #lines,
    appliedLimit = applied }
end

-- The grep and rg flags the original reads as an output_mode, in its order.
local MODE_FLAGS = { { "-l", "files_with_matches" }, { "-c", "count" } }

-- mendPath reads file_path, a filled string, as path when path is not given; when
-- path is given the same, file_path is dropped. It returns the sentence that says
-- so, or nil for nothing done.
---@param input table
---@return string?
local function mendPath(input)
  local given = input.file_path
  if type(given) ~= "string" or given == "" then
    return nil
  end
  local prefix = "Grep's parameter for where to search is named `path`. "
  if input.path == nil then
    input.path, input.file_path = given, nil
    return prefix .. "`file_path` was read as `path`."
  elseif input.path == given then
    input.file_path = nil
    return prefix .. "`file_path` repeated `path` and was ignored."
  end
  return nil
end

-- mendFlags reads -l and -c, when on, as the output_mode they stand for (dropped
-- when output_mode is given the same), and drops -r, which the search always is.
-- It adds the sentences that say so to said.
---@param input table
---@param said string[]
local function mendFlags(input, said)
  for _, flag in ipairs(MODE_FLAGS) do
    local name, mode = flag[1], flag[2]
    if mend.isTrue(input[name]) and (input.output_mode == nil or input.output_mode == mode) then
      if input.output_mode == nil then
        said[#said + 1] = ("`%s` is not a Grep parameter and was read as `output_mode: \"%s\"`."):format(name, mode)
      else
        said[#said + 1] = ("`%s` repeated `output_mode` and was ignored."):format(name)
      end
      input[name], input.output_mode = nil, mode
    end
  end
  if mend.isTrue(input["-r"]) then
    input["-r"] = nil
    said[#said + 1] = "`-r` was ignored: Grep always searches a directory recursively."
  end
end

-- Declared first, so that coerceInput can check an input against the schema.
---@type luatool.Tool
local tool
tool = {
  name = "Grep",
  userFacingName = "Search",
  searchHint = "search file contents with regex (ripgrep)",
  maxResultSizeChars = 20000,
  isReadOnly = true,
  isConcurrencySafe = true,

  prompt = [[
Searches file contents with a regular expression, like ripgrep; prefer it to `grep` or `rg` in Bash.

- Patterns use ripgrep's (Rust) regex syntax, e.g. "func\s+\w+" or "err.*nil", without look-around or backreferences. Escape literal braces (`struct\{\}`).
- Narrow the files with `glob` ("*.lua") or `type` ("go", "py", "js").
- `output_mode` chooses "files_with_matches" (paths; the default), "content" (the lines) or "count".
- Set `multiline` for a match that runs over several lines.
- Paths with odd characters come double-quoted; pass them on as shown.]],

  inputSchema = {
    type = "object",
    properties = {
      pattern = {
        type = "string",
        description = "Regular expression (ripgrep's syntax) to look for inside files",
      },
      path = {
        type = "string",
        description = "File or folder to search (rg PATH); the current working directory when left out",
      },
      glob = {
        type = "string",
        description = 'Search only files whose names match this glob, e.g. "*.go" or "*.{yml,yaml}" (rg --glob)',
      },
      output_mode = {
        type = "string",
        enum = { "content", "files_with_matches", "count" },
        description = 'Form of the result: "content" prints the matching lines and honours -A, -B, -C, -n and head_limit; "files_with_matches" prints only the paths of files that match, newest first; "count" prints how many lines match in each file. The last two honour head_limit too. Default: "files_with_matches".',
      },
      ["-B"] = {
        type = "number",
        description = 'Lines of context to print ahead of each match (rg -B). Only used when output_mode is "content"',
      },
      ["-A"] = {
        type = "number",
        description = 'Lines of context to print after each match (rg -A). Only used when output_mode is "content"',
      },
      ["-C"] = {
        type = "number",
        description = "Another name for context",
      },
      context = {
        type = "number",
        description = 'Lines of context on both sides of each match (rg -C); wins over -C, -A and -B. Only used when output_mode is "content"',
      },
      ["-n"] = {
        type = "boolean",
        description = 'Prefix each printed line with its line number (rg -n); on unless set to false. Only used when output_mode is "content"',
      },
      ["-i"] = {
        type = "boolean",
        description = "Ignore letter case (rg -i)",
      },
      ["-o"] = {
        type = "boolean",
        description = 'Print just the matching text of each line rather than the whole line, every match on a line of its own (rg -o, --only-matching). Only used when output_mode is "content"; off by default',
      },
      type = {
        type = "string",
        description = "Restrict the search to one file type as rg --type names them, e.g. go, py, js, rust, java. For well-known languages it is shorter than spelling out a glob",
      },
      head_limit = {
        type = "number",
        description = "Cap on how much comes back, like piping into head -N: the first N lines in content mode, the first N paths in files_with_matches mode, the first N per-file counts in count mode. Without it the cap is 250; 0 removes it, which can flood your context with a big result, so use 0 with care",
      },
      offset = {
        type = "number",
        description = "How many lines or entries to skip before head_limit is applied, like tail -n +N+1 ahead of head; 0 unless given. With head_limit it pages through a long result",
      },
      multiline = {
        type = "boolean",
        description = "Allow a match to span lines, with . matching a newline as well (rg -U --multiline-dotall). Off by default",
      },
    },
    required = { "pattern" },
    additionalProperties = false,
  },

  -- The original mends what a model used to grep or rg sends (file_path, -l, -c,
  -- -r), only when the mended input is then valid: else the schema judges the input
  -- as sent. A successful result ends with a note of what was mended. The path the
  -- rules check (getPath) is the mended path, the one searched.
  ---@param input table
  coerceInput = function(input)
    local said = { mendPath(input) }
    mendFlags(input, said)
    if #said > 0 and mend.fits(tool.inputSchema, input) then
      return input, "Note: " .. table.concat(said, " ")
    end
  end,

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
        local text = PAGING_ERRORS[name] or (name .. " must be a whole number of lines or entries, 0 or more; got %s")
        return { result = false, errorCode = PAGING_ERRORS[name] and 2 or 4, message = text:format(tostring(n)) }
      end
    end
    return true
  end,

  ---@param input GrepInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    checkQuery(input, ctx)
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
      local text = data.content ~= "" and data.content or emptyPage(data, data.totalLines > 0)
      if limitInfo ~= "" then
        text = text .. "\n\n[Showing results with pagination = " .. limitInfo .. "]"
      end
      return text
    end
    if data.mode == "count" then
      local text = data.content ~= "" and data.content or emptyPage(data, data.numFiles > 0)
      local summary = ("\n\nFound %d total %s across %d %s."):format(data.numMatches,
        plural(data.numMatches, "occurrence"), data.numFiles, plural(data.numFiles, "file"))
      if limitInfo ~= "" then
        summary = summary .. " with pagination = " .. limitInfo
      end
      return text .. summary
    end
    if data.numFiles == 0 then
      if data.appliedOffset and data.totalFiles > 0 then
        return "No entries at this offset. [Showing results with pagination = " .. limitInfo .. "]"
      end
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
