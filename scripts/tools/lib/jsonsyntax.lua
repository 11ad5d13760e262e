-- jsonsyntax: what the original's JSON parser (JavaScriptCore's JSON.parse) says of
-- text that is not JSON, so that Read can report a broken notebook in its words.
--
-- It reads the text as that parser does: tokens first (strings, numbers, the words
-- true, false and null matched as prefixes, identifiers, punctuation), then their
-- order, and names the first problem it meets. It runs only after the json module has
-- refused the text. The parse is iterative, so deep nesting costs no Lua stack.

local jsonsyntax = {}

local WHITESPACE = { [0x20] = true, [0x09] = true, [0x0A] = true, [0x0D] = true }
local PUNCTUATION = { ["{"] = true, ["}"] = true, ["["] = true, ["]"] = true, [","] = true, [":"] = true }
local ESCAPES = { ['"'] = true, ["\\"] = true, ["/"] = true, b = true, f = true, n = true, r = true, t = true }
local WORDS = { "true", "false", "null" }

local function isDigit(c) return c ~= nil and c >= 0x30 and c <= 0x39 end

local function isIdentifier(c, first)
  return c ~= nil and ((c >= 0x41 and c <= 0x5A) or (c >= 0x61 and c <= 0x7A) or c == 0x5F or c == 0x24
    or (not first and isDigit(c)))
end

-- charAt is the whole UTF-8 character at byte i of s.
local function charAt(s, i)
  return s:match("^[\192-\255][\128-\191]*", i) or s:sub(i, i)
end

-- lexString reads a string whose quote is at i: the position after it, or nil and
-- the parser's message.
local function lexString(s, i)
  i = i + 1
  while true do
    local c = s:byte(i)
    if c == nil or c < 0x20 then
      return nil, "Unterminated string"
    elseif c == 0x22 then
      return i + 1
    elseif c == 0x5C then
      local e = s:sub(i + 1, i + 1)
      if e == "" then
        return nil, "Unterminated string"
      elseif e == "u" then
        if not s:sub(i + 2, i + 5):match("^%x%x%x%x$") then
          return nil, "\\u must be followed by 4 hex digits"
        end
        i = i + 6
      elseif ESCAPES[e] then
        i = i + 2
      else
        return nil, "Invalid escape character " .. charAt(s, i + 1)
      end
    else
      i = i + 1
    end
  end
end

-- lexNumber reads a number that starts at i: the position after it, or nil and the
-- parser's message. A leading 0 ends the integer part, and an "e" without digits
-- after it is not part of the number.
local function lexNumber(s, i)
  if s:byte(i) == 0x2D then
    i = i + 1
  end
  if not isDigit(s:byte(i)) then
    return nil, "Invalid number"
  end
  if s:byte(i) == 0x30 then
    i = i + 1
  else
    while isDigit(s:byte(i)) do i = i + 1 end
  end
  if s:byte(i) == 0x2E then
    i = i + 1
    if not isDigit(s:byte(i)) then
      return nil, "Invalid digits after decimal point"
    end
    while isDigit(s:byte(i)) do i = i + 1 end
  end
  local e = s:byte(i)
  if e == 0x65 or e == 0x45 then
    local j = i + 1
    local sign = s:byte(j) == 0x2B or s:byte(j) == 0x2D
    if sign then
      j = j + 1
    end
    if isDigit(s:byte(j)) then
      i = j
      while isDigit(s:byte(i)) do i = i + 1 end
    elseif sign then
      return nil, "Exponent symbols should be followed by an optional '+' or '-' and then by at least one number"
    end
  end
  return i
end

-- lexer returns a function that gives the next token of s: its kind ("end", "err",
-- "string", "value" for another number or word, "ident", or the punctuation itself) and, for "err", the message, for
-- "ident", the name.
local function lexer(s)
  local i = 1
  return function()
    while WHITESPACE[s:byte(i)] do i = i + 1 end
    local c = s:byte(i)
    if c == nil then
      return "end"
    end
    local ch = s:sub(i, i)
    if PUNCTUATION[ch] then
      i = i + 1
      return ch
    end
    local after, msg
    local kind = "value"
    if c == 0x22 then
      kind = "string"
      after, msg = lexString(s, i)
    elseif c == 0x2D or isDigit(c) then
      after, msg = lexNumber(s, i)
    elseif c == 0x27 then
      msg = "Single quotes (') are not allowed in JSON"
    elseif isIdentifier(c, true) then
      for _, word in ipairs(WORDS) do
        if s:sub(i, i + #word - 1) == word then
          i = i + #word
          return "value"
        end
      end
      local j = i + 1
      while isIdentifier(s:byte(j), false) do j = j + 1 end
      local name = s:sub(i, j - 1)
      i = j
      return "ident", name
    else
      msg = "Unrecognized token '" .. charAt(s, i) .. "'"
    end
    if not after then
      return "err", msg
    end
    i = after
    return kind
  end
end

-- valueError is the message for token kind (with detail) where a value must start.
local function valueError(kind, detail)
  if kind == "err" then
    return detail
  elseif kind == "end" then
    return "Unexpected EOF"
  elseif kind == "ident" then
    return 'Unexpected identifier "' .. detail .. '"'
  end
  return "Unexpected token '" .. kind .. "'"
end

-- colonThen reads the ":" after a property name, then the token after it: that
-- token's kind and detail, or nil and the parser's message.
local function colonThen(next)
  local kind, detail = next()
  if kind == "err" then
    return nil, detail
  elseif kind ~= ":" then
    return nil, "Expected ':' before value in object property definition"
  end
  return next()
end

-- message is the original's error for s, without its "JSON Parse error: " prefix,
-- or nil when the parser would accept it.
local function message(s)
  local next = lexer(s)
  local open = {} -- the containers around the current value, "[" or "{"
  local kind, detail = next()
  while true do
    -- A value starts at kind.
    local done = kind == "value" or kind == "string"
    if kind == "[" then
      kind, detail = next()
      if kind == "]" then
        done = true
      else
        open[#open + 1] = "["
      end
    elseif kind == "{" then
      kind, detail = next()
      if kind == "}" then
        done = true
      elseif kind == "err" then
        return detail
      elseif kind ~= "string" then
        return "Expected '}'"
      else
        open[#open + 1] = "{"
        kind, detail = colonThen(next)
        if not kind then
          return detail
        end
      end
    elseif not done then
      return valueError(kind, detail)
    end
    -- After a complete value: close containers, or move to the next element.
    while done do
      local top = open[#open]
      kind, detail = next()
      if top == nil then
        return kind ~= "end" and "Unable to parse JSON string" or nil
      elseif kind == "err" then
        return detail
      elseif kind == "," then
        kind, detail = next()
        if top == "[" then
          if kind == "]" then
            return "Unexpected comma at the end of array expression"
          end
        else
          if kind == "err" then
            return detail
          elseif kind ~= "string" then
            return "Property name must be a string literal"
          end
          kind, detail = colonThen(next)
          if not kind then
            return detail
          end
        end
        done = false
      elseif (top == "[" and kind == "]") or (top == "{" and kind == "}") then
        open[#open] = nil
      else
        return top == "[" and "Expected ']'" or "Expected '}'"
      end
    end
  end
end

-- describe is the original's message for text that its JSON parser refuses, or nil
-- when that parser would accept it.
---@param text string
---@return string?
function jsonsyntax.describe(text)
  local msg = message(text)
  return msg and "JSON Parse error: " .. msg
end

return jsonsyntax
