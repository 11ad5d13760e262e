-- WebFetch: fetches a URL over the http module and answers a prompt about the page,
-- as Claude Code's WebFetch does. HTML becomes Markdown; the page text, a window of
-- it at a time (offset reads on), goes with the prompt to the model of the call's
-- client (ctx:summarize, a sampling request: the host's model, or under serve the
-- MCP client's) when there is one. Without one, or when it does not answer, the
-- window itself comes back, with the prompt, saying why. The texts for a redirect to another host, an HTTP
-- error and a page longer than the window are the original's.
--
-- Confinement: network = { "*" }, so each host needs a permission of its own,
-- WebFetch(domain:HOST), through ruleContent; the call reaches only that host. An
-- http:// URL is fetched as https://, and redirects are followed only within the
-- same scheme, host and port; any other is handed back to the model.

---@type luatool.http
local http = require("http")
local fail = require("files").fail

local MAX_URL = 2000
-- Characters of page text one call covers: the original's for its model; without a
-- model, what fits under the result limit (50,000) beside the notes.
local WINDOW = 100000
local PLAIN_WINDOW = 45000
local MAX_REDIRECTS = 10
local ACCEPT = "text/markdown, text/html, */*"

local NO_DOT = "WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server, use Bash with curl instead."
local NOT_RETRIEVED = "The response body was not retrieved. If this URL requires authentication, use an authenticated tool (e.g. `gh` for GitHub, or an MCP-provided fetch tool) instead of WebFetch."

---@class WebFetchInput
---@field url string
---@field prompt string
---@field offset? integer

-- The original's input errors (zod's form), for what the schema cannot say.
local function zodError(issue)
  return "InputValidationError: [\n  {\n" .. issue .. ",\n    \"path\": [\n      \"url\"\n    ],\n    \"message\": "
end
local INVALID_URL = zodError('    "code": "invalid_format",\n    "format": "url"') .. '"Invalid URL"\n  }\n]'
local TOO_LONG = zodError('    "code": "custom"') .. '"URL is longer than 2000 characters"\n  }\n]'

-- parse splits a URL into scheme, userinfo (or nil), host, port (or nil) and the
-- rest (path, query, fragment); nil when it is not scheme://authority... or
-- scheme:opaque.
---@param url string
local function parse(url)
  local scheme, rest = url:match("^(%a[%w+.-]*):(.*)$")
  if not scheme then
    return nil
  end
  local authority, tail = rest:match("^//([^/?#]*)(.*)$")
  if not authority then
    if rest == "" or rest:find("%s") then
      return nil
    end
    return { scheme = scheme:lower(), host = "", rest = rest }
  end
  local userinfo, hostport = authority:match("^(.*)@(.*)$")
  hostport = hostport or authority
  local host, port = hostport:match("^(%[[^%]]*%])(.*)$")
  if not host then
    host, port = hostport:match("^([^:]*)(.*)$")
  end
  if port ~= "" and not port:match("^:%d*$") then
    return nil
  end
  if host == "" or host:find("[%s<>\"{}|\\^`]") then
    return nil
  end
  return { scheme = scheme:lower(), userinfo = userinfo, host = host:lower(), port = port:sub(2), rest = tail }
end

-- problem returns what the original refuses a URL with, or nil.
---@param u table
local function problem(u)
  if u.userinfo then
    return "Invalid URL"
  end
  if u.scheme ~= "http" and u.scheme ~= "https" then
    return "Unsupported protocol " .. u.scheme .. ":"
  end
  if not u.host:find(".", 1, true) then
    return NO_DOT
  end
  return nil
end

-- origin is what a redirect must keep to be followed: scheme, host and port.
---@param url string
local function origin(url)
  local u = parse(url)
  if not u then
    return nil
  end
  local port = u.port
  if port == "" or port == nil then
    port = u.scheme == "https" and "443" or "80"
  end
  return u.scheme .. "://" .. u.host .. ":" .. port
end

-- charCount is the number of characters (UTF-8 code points) of s.
---@param s string
local function charCount(s)
  local _, n = s:gsub("[^\128-\191]", "")
  return n
end

-- window returns characters first+1 to last of s (0-based first, exclusive last).
---@param s string
---@param total integer the characters of s
local function window(s, total, first, last)
  if total == #s then
    return s:sub(first + 1, last)
  end
  local function byteAt(i)
    local pos = 1
    for _ = 1, i do
      pos = (s:find("[^\128-\191]", pos + 1) or #s + 1)
    end
    return pos
  end
  local from = byteAt(first)
  local to = from
  for _ = first + 1, last do
    to = (s:find("[^\128-\191]", to + 1) or #s + 1)
  end
  return s:sub(from, to - 1)
end

-- isText reports whether a content type is text the model can read.
---@param ctype string
local function isText(ctype)
  return ctype == "" or ctype:match("^text/") or ctype:match("json$") or ctype:match("xml$")
      or ctype:match("javascript$") or ctype:match("^application/x%-www%-form%-urlencoded")
end

-- fetch gets url, following redirects that keep its origin; it returns the final
-- response, or a redirect elsewhere as (nil, response, the URL it was fetching).
---@param url string
local function fetch(url)
  local current = url
  for _ = 0, MAX_REDIRECTS do
    local r, err = http.get(current, { redirects = 0, headers = { Accept = ACCEPT } })
    if not r then
      fail((err:gsub("^http%.get: ", "")))
    end
    ---@cast r luatool.HTTPResponse
    if not r.location then
      return r
    end
    if origin(r.location) ~= origin(current) then
      return nil, r
    end
    current = r.location
  end
  fail(("Too many redirects (more than %d)"):format(MAX_REDIRECTS))
end

-- statusText is "404 Not Found".
---@param r luatool.HTTPResponse
local function statusLine(r)
  return (("%d %s"):format(r.status, r.statusText):gsub("%s+$", ""))
end

-- redirectText is the original's instruction for a redirect to another host.
local function redirectText(input, r)
  return "REDIRECT DETECTED: The URL redirects to a location that was not fetched automatically.\n\n" ..
      "    Original URL: " .. input.url .. "\n" ..
      "    Redirect URL (from the server's Location header — server-supplied, not verified): " .. r.location .. "\n" ..
      "    Status: " .. statusLine(r) .. "\n\n" ..
      "    To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:\n" ..
      '    - url: "' .. r.location .. '"\n' ..
      '    - prompt: "' .. input.prompt .. '"'
end

-- errorText is the original's text for an HTTP error status.
---@param r luatool.HTTPResponse
local function errorText(r)
  local text = "The server returned HTTP " .. statusLine(r) .. "."
  if r.headers["retry-after"] then
    text = text .. "\nRetry-After: " .. r.headers["retry-after"]
  end
  return text .. "\n\n" .. NOT_RETRIEVED
end

-- pageText is the page as the model reads it: HTML as Markdown, other text as is.
---@param r luatool.HTTPResponse
local function pageText(r, ctype)
  if ctype == "text/html" or ctype == "application/xhtml+xml" then
    local md, err = http.markdown(r.body, { baseUrl = r.url })
    if not md then
      fail(err)
    end
    return md
  end
  return r.body
end

-- note is the original's note on a page longer than one call covers; what names the
-- part covered ("answer" with a model, "text" without).
local function note(what, total, first, last)
  return ("\n\n[WebFetch note: this page's text is %d characters long and the %s above covers only characters %d to %d; the final %d were not read — to read on, call WebFetch again with the same url and offset: %d.]")
      :format(total, what, first, last, total - last, last)
end

-- answer builds the result of a page: the host's model's answer about a window of
-- WINDOW characters when the host has a model, else a window of PLAIN_WINDOW
-- characters itself, with the prompt.
---@param input WebFetchInput
---@param ctx luatool.Context
local function answer(input, ctx, text)
  local total = charCount(text)
  local first = input.offset or 0
  if first > 0 and first >= total then
    return ("The page's text is %d characters long, so there is nothing at offset %d."):format(total, first)
  end
  local last = math.min(total, first + WINDOW)
  local content = window(text, total, first, last)
  if last < total then
    content = content .. "\n\n[Content truncated due to length...]"
  end
  if first > 0 then
    content = ("The content below is one part of a longer page: it starts %d characters into the page's %d.\n\n"):format(first, total) .. content
  end
  local reply, err, code = ctx:summarize(content, input.prompt)
  if reply then
    if last < total then
      reply = reply .. note("answer", total, first, last)
    end
    return reply
  end
  -- Whatever kept the model from answering (none, its user declined, it failed),
  -- the page itself answers.
  local why = "No model was available to answer the prompt"
  if code ~= "unavailable" then
    why = "The model could not answer the prompt (" .. err .. ")"
  end
  last = math.min(total, first + PLAIN_WINDOW)
  local out = why .. ", so this is the page itself, converted to Markdown; answer the prompt from it: \"" ..
      input.prompt .. "\"\n\n---\n" .. window(text, total, first, last) .. "\n---"
  if last < total then
    out = out .. note("text", total, first, last)
  end
  return out
end

---@type luatool.Tool
local tool = {
  name = "WebFetch",
  userFacingName = "Fetch",
  searchHint = "fetch and extract content from a URL",
  maxResultSizeChars = 100000,
  shouldDefer = true,
  isReadOnly = true,
  isConcurrencySafe = true,
  network = { "*" },

  prompt = [[
Retrieves a web page, turns HTML into Markdown and answers `prompt` from it with the host's small model, or, without one, returns the page text.

- Each host needs its own permission. Pages behind a login fail: use a tool that is signed in.
- localhost, names without a dot and private addresses (unless the host allows them) are refused; for a local server, try curl in Bash.
- http:// is fetched as https://. A redirect to a different host is reported, not followed: call again with the new URL.
- Pages are not cached: each call fetches anew.]],

  inputSchema = {
    type = "object",
    properties = {
      url = { description = "Full address of the page to fetch", type = "string", format = "uri" },
      prompt = { description = "What you want to learn from the page", type = "string" },
      offset = {
        description = "Where in the page text to resume, in characters. When a page is too long for a single call, the result ends with the value to pass here to continue",
        type = "integer",
        minimum = 0,
        maximum = 9007199254740991,
      },
    },
    required = { "url", "prompt" },
    additionalProperties = false,
  },

  ---@param input WebFetchInput
  description = function(input)
    local u = parse(input.url)
    return "Fetch content from " .. (u and u.host ~= "" and u.host or input.url)
  end,

  ---@param input WebFetchInput
  ruleContent = function(input)
    local u = parse(input.url)
    return "domain:" .. (u and u.host or "")
  end,

  ---@param input WebFetchInput
  toAutoClassifierInput = function(input)
    return input.url .. ": " .. input.prompt
  end,

  ---@param input WebFetchInput
  validateInput = function(input)
    if #input.url > MAX_URL then
      return { result = false, message = TOO_LONG }
    end
    if not parse(input.url) then
      return { result = false, message = INVALID_URL }
    end
    return true
  end,

  -- The original's refusals of a URL it will not fetch come before anyone is asked.
  ---@param input WebFetchInput
  checkPermissions = function(input)
    local u = parse(input.url)
    local why = u and problem(u) or not u and "Invalid URL"
    if why then
      return { behavior = "deny", message = why }
    end
    return { behavior = "passthrough" }
  end,

  ---@param input WebFetchInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local u = parse(input.url)
    local why = u and problem(u) or not u and "Invalid URL"
    if why then
      fail(why)
    end
    ---@cast u table
    local url = input.url
    if u.scheme == "http" then
      url = "https:" .. url:sub(#"http:" + 1)
    end
    local r, redirect = fetch(url)
    if not r then
      local text = redirectText(input, redirect)
      return { data = { bytes = #text, code = redirect.status, codeText = redirect.statusText, result = text, url = input.url } }
    end
    ---@cast r luatool.HTTPResponse
    local data = { bytes = #r.body, code = r.status, codeText = r.statusText, url = input.url }
    if r.status >= 300 then
      data.bytes, data.result = 0, errorText(r)
      return { data = data }
    end
    local ctype = (r.headers["content-type"] or ""):match("^%s*([^;%s]*)"):lower()
    if not isText(ctype) then
      data.result = ("The URL returned %s content (%d bytes), which WebFetch does not show: it reads text and web pages only."):format(ctype, #r.body)
      return { data = data }
    end
    data.result = answer(input, ctx, pageText(r, ctype))
    return { data = data }
  end,

  mapResult = function(data)
    return data.result
  end,

  renderToolResultMessage = function(data)
    return ("Received %d bytes (%d %s)"):format(data.bytes, data.code, data.codeText)
  end,
}

return tool
