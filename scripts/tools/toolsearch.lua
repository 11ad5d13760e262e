-- ToolSearch: reveals the schemas of deferred tools, as Claude Code's ToolSearch does.
-- Deferred tools are announced to the model by name only; this tool finds them by
-- exact selection ("select:A,B") or by keywords scored over name parts, searchHint and
-- description, returns their definitions as text (our emulation of tool_reference
-- blocks) and marks them discovered, so that the host sends their schemas from then on.

local tools = require("tools")
local json = require("json")

local DEFAULT_MAX_RESULTS = 5
local NO_MATCH = "No matching deferred tools found"

-- isWordChar reports whether c (one character, or "" at either end of a text) is
-- a regular-expression word character.
local function isWordChar(c)
  return c ~= "" and c:match("[%w_]") ~= nil
end

-- containsWord reports whether word occurs in text between word boundaries, as the
-- original's /\bword\b/ test does.
local function containsWord(text, word)
  if word == "" then
    return false
  end
  local init = 1
  while true do
    local s, e = text:find(word, init, true)
    if not s then
      return false
    end
    local before, after = text:sub(s - 1, s - 1), text:sub(e + 1, e + 1)
    if isWordChar(before) ~= isWordChar(word:sub(1, 1)) and isWordChar(after) ~= isWordChar(word:sub(-1)) then
      return true
    end
    init = s + 1
  end
end

-- parseName splits a tool name into lower-cased parts: an MCP name
-- (mcp__server__action) without its prefix on "_" and "__", any other at CamelCase
-- boundaries and "_". It returns the parts, them joined with spaces, and whether
-- the name is an MCP tool's.
local function parseName(name)
  local isMcp = name:sub(1, 5) == "mcp__"
  local spaced
  if isMcp then
    spaced = name:sub(6):gsub("_+", " ")
  else
    spaced = name:gsub("(%l)(%u)", "%1 %2"):gsub("_", " ")
  end
  local parts = {}
  for p in spaced:lower():gmatch("%S+") do
    parts[#parts + 1] = p
  end
  return parts, table.concat(parts, " "), isMcp
end

-- byName finds the tool named name in list, or nil.
local function byName(list, name)
  for _, t in ipairs(list) do
    if t.name == name then
      return t
    end
  end
  return nil
end

-- selectTools resolves "select:A,B": each name against the deferred tools first,
-- then all tools; repeats and unknown names dropped.
local function selectTools(spec, deferred, all)
  local found, seen = {}, {}
  for raw in spec:gmatch("[^,]+") do
    local name = raw:match("^%s*(.-)%s*$")
    local t = name ~= "" and (byName(deferred, name) or byName(all, name))
    if t and not seen[t.name] then
      seen[t.name] = true
      found[#found + 1] = t
    end
  end
  return found
end

-- matchesTerm reports whether a tool matches a required term: in a name part, in
-- its searchHint or in its description.
local function matchesTerm(c, term)
  for _, p in ipairs(c.parts) do
    if p:find(term, 1, true) then
      return true
    end
  end
  return containsWord(c.hint, term) or containsWord(c.desc, term)
end

-- score is the original's additive score of a tool for the query's terms.
local function score(c, terms)
  local s = 0
  for _, term in ipairs(terms) do
    local exact, partial = false, false
    for _, p in ipairs(c.parts) do
      if p == term then
        exact = true
      elseif p:find(term, 1, true) then
        partial = true
      end
    end
    if exact then
      s = s + (c.isMcp and 12 or 10)
    elseif partial then
      s = s + (c.isMcp and 6 or 5)
    end
    if s == 0 and c.full:find(term, 1, true) then
      s = s + 3
    end
    if containsWord(c.hint, term) then
      s = s + 4
    end
    if containsWord(c.desc, term) then
      s = s + 2
    end
  end
  return s
end

-- keywordSearch finds deferred tools for a free-form query, best first, at most max.
local function keywordSearch(query, deferred, all, max)
  local q = query:lower():match("^%s*(.-)%s*$")
  for _, list in ipairs({ deferred, all }) do
    for _, t in ipairs(list) do
      if t.name:lower() == q then
        return { t }
      end
    end
  end
  if q:sub(1, 5) == "mcp__" then
    local found = {}
    for _, t in ipairs(deferred) do
      if #found < max and t.name:lower():sub(1, #q) == q then
        found[#found + 1] = t
      end
    end
    if #found > 0 then
      return found
    end
  end

  local terms, required, optional = {}, {}, {}
  for w in q:gmatch("%S+") do
    terms[#terms + 1] = w
    if #w > 1 and w:sub(1, 1) == "+" then
      required[#required + 1] = w:sub(2)
    else
      optional[#optional + 1] = w
    end
  end
  if #required > 0 then
    terms = {}
    for _, w in ipairs(required) do
      terms[#terms + 1] = w
    end
    for _, w in ipairs(optional) do
      terms[#terms + 1] = w
    end
  end

  local ranked = {}
  for i, t in ipairs(deferred) do
    local parts, full, isMcp = parseName(t.name)
    local c = { tool = t, index = i, parts = parts, full = full, isMcp = isMcp,
      hint = (t.searchHint or ""):lower(), desc = (t.prompt or ""):lower() }
    local ok = true
    for _, term in ipairs(required) do
      ok = ok and matchesTerm(c, term)
    end
    if ok then
      c.score = score(c, terms)
      if c.score > 0 then
        ranked[#ranked + 1] = c
      end
    end
  end
  table.sort(ranked, function(a, b)
    if a.score ~= b.score then
      return a.score > b.score
    end
    return a.index < b.index
  end)
  local found = {}
  for i = 1, math.min(max, #ranked) do
    found[i] = ranked[i].tool
  end
  return found
end

-- definition is a tool's definition as the model's tool list encodes it.
local function definition(t)
  return "<function>" .. json.encode({ description = t.prompt, name = t.name, parameters = t.inputSchema }) .. "</function>"
end

---@type luatool.Tool
local tool = {
  name = "ToolSearch",
  searchHint = "find and load deferred tools by name or keyword",
  maxResultSizeChars = 100000,
  alwaysLoad = true,
  isReadOnly = true,
  isConcurrencySafe = true,
  prompt = [[
Fetches the full schema definitions of deferred tools so that they can be called.

Deferred tools are announced by name only. Until a tool's schema is fetched, its parameters are unknown and it cannot be called correctly. This tool matches a query against the deferred tools and returns the complete definitions of the matches inside a <functions> block, one per line, each as <function>{"description": "...", "name": "...", "parameters": {...}}</function>: the same encoding as the tools listed at the top of this prompt. Once a tool's definition has been returned, call it like any other tool.

Query forms:
- "select:Read,Edit,Grep": fetch these tools by exact name (the fastest way when you know the names)
- "notebook jupyter": keyword search over tool names, search hints and descriptions; returns up to max_results best matches
- "+slack send": a term starting with + is required; the tools returned all match it, ranked by the other terms]],
  inputSchema = {
    type = "object",
    properties = {
      query = {
        type = "string",
        description = 'Query to find deferred tools. Use "select:<tool_name>" for direct selection, or keywords to search.',
      },
      max_results = {
        type = "number",
        description = "Maximum number of results to return (default: 5)",
        default = DEFAULT_MAX_RESULTS,
      },
    },
    required = { "query" },
    additionalProperties = false,
  },

  description = function(input)
    return "Search tools: " .. input.query
  end,

  call = function(input)
    local all = tools.list()
    local deferred = {}
    for _, t in ipairs(all) do
      if t.deferred then
        deferred[#deferred + 1] = t
      end
    end
    local found
    local spec = input.query:match("^%s*[Ss][Ee][Ll][Ee][Cc][Tt]:(.*)$")
    if spec then
      found = selectTools(spec, deferred, all)
    else
      found = keywordSearch(input.query, deferred, all, math.floor(input.max_results))
    end
    local matches, defs = json.array(), {}
    for i, t in ipairs(found) do
      matches[i] = t.name
      defs[i] = definition(t)
    end
    tools.discover(matches)
    return {
      data = {
        matches = matches,
        query = input.query,
        total_deferred_tools = #deferred,
        definitions = #defs > 0 and "<functions>\n" .. table.concat(defs, "\n") .. "\n</functions>" or "",
      },
    }
  end,

  mapResult = function(data)
    if #data.matches == 0 then
      return NO_MATCH
    end
    return data.definitions
  end,

  renderToolResultMessage = function(data)
    return ("Found %d %s"):format(#data.matches, #data.matches == 1 and "tool" or "tools")
  end,
}

return tool
