-- uescape: how Edit matches old_string across \uXXXX escapes, as the original does. A
-- model often writes a character where the file holds its escape (JSON, source code)
-- or the escape where the file holds the character. When old_string is not in the
-- file as written (nor with its quotes straightened), the original tries the other
-- form, and writes new_string in the form the file uses.
--
-- Escapes stand for UTF-16 code units, as in JavaScript: a character outside the BMP
-- is two escapes (a surrogate pair). Every character that is not ASCII counts, as
-- the original's /[\u0080-\uffff]/ does.

local uescape = {}

local HEX4 = "^\\u(%x%x%x%x)"

-- units is the UTF-16 code units of the UTF-8 character that starts at byte i of s,
-- and the byte after it. Bytes that do not form a character count as U+FFFD.
local function units(s, i)
  local b = s:byte(i)
  local n = b >= 0xF0 and 3 or b >= 0xE0 and 2 or b >= 0xC0 and 1 or 0
  local cp = n == 0 and b or b % (2 ^ (6 - n))
  for k = 1, n do
    local c = s:byte(i + k)
    if not c or c < 0x80 or c > 0xBF then
      return { 0xFFFD }, i + 1
    end
    cp = cp * 64 + c % 64
  end
  if b >= 0x80 and n == 0 then
    return { 0xFFFD }, i + 1
  end
  if cp >= 0x10000 then
    cp = cp - 0x10000
    return { 0xD800 + math.floor(cp / 0x400), 0xDC00 + cp % 0x400 }, i + n + 1
  end
  return { cp }, i + n + 1
end

-- utf8Of encodes a code point; a lone surrogate gets its three bytes, which no valid
-- file text holds, as a lone surrogate matches nothing in the original.
local function utf8Of(cp)
  if cp < 0x80 then
    return string.char(cp)
  elseif cp < 0x800 then
    return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64)
  elseif cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
    0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

-- hasEscape tells whether s holds a \uXXXX escape.
---@param s string
function uescape.hasEscape(s)
  return s:find("\\u%x%x%x%x") ~= nil
end

-- hasWide tells whether s holds a character that is not ASCII.
---@param s string
function uescape.hasWide(s)
  return s:find("[\128-\255]") ~= nil
end

-- decode replaces each \uXXXX escape of s by its character; an escaped backslash
-- ("\\") stays as it is, so "\\u0041" is not an escape.
---@param s string
---@return string
function uescape.decode(s)
  local out, pending, i = {}, nil, 1
  local function flush()
    if pending then
      out[#out + 1] = utf8Of(pending)
      pending = nil
    end
  end
  while i <= #s do
    local hex = s:match(HEX4, i)
    if s:sub(i, i + 1) == "\\\\" then
      flush()
      out[#out + 1] = "\\\\"
      i = i + 2
    elseif hex then
      local unit = tonumber(hex, 16)
      if pending and unit >= 0xDC00 and unit <= 0xDFFF then
        out[#out + 1] = utf8Of(0x10000 + (pending - 0xD800) * 0x400 + (unit - 0xDC00))
        pending = nil
      else
        flush()
        if unit >= 0xD800 and unit <= 0xDBFF then
          pending = unit
        else
          out[#out + 1] = utf8Of(unit)
        end
      end
      i = i + 6
    else
      flush()
      out[#out + 1] = s:sub(i, i)
      i = i + 1
    end
  end
  flush()
  return table.concat(out)
end

-- backslashesBefore counts the backslashes right before byte i of s.
local function backslashesBefore(s, i)
  local n = 0
  while i - n - 1 >= 1 and s:byte(i - n - 1) == 0x5C do
    n = n + 1
  end
  return n
end

-- tokens splits s into what its escaped form must hold: an ASCII byte, or for each
-- code unit of a wider character the four hex digits of its escape.
local function tokens(s)
  local out, i = {}, 1
  while i <= #s do
    if s:byte(i) < 0x80 then
      out[#out + 1] = { byte = s:byte(i) }
      i = i + 1
    else
      local us
      us, i = units(s, i)
      for _, u in ipairs(us) do
        out[#out + 1] = { hex = ("%04x"):format(u), unit = u }
      end
    end
  end
  return out
end

-- matchAt tries the escaped form of toks at byte at of text: the byte after it, or
-- nil. The digits' letters may be of either case.
local function matchAt(toks, text, at)
  local p = at
  for _, t in ipairs(toks) do
    if t.byte then
      if text:byte(p) ~= t.byte then
        return nil
      end
      p = p + 1
    else
      local digits = text:match(HEX4, p)
      if not digits or digits:lower() ~= t.hex then
        return nil
      end
      p = p + 6
    end
  end
  return p
end

-- findEscaped finds search written with escapes for its wide characters in content:
-- the first place where none of those escapes (nor a leading backslash of search) is
-- itself escaped, returned as the text found, or nil. The original gives up when an
-- earlier copy of that same text was rejected.
---@param search string
---@param content string
---@return string?
function uescape.findEscaped(search, content)
  if backslashesBefore(search, #search + 1) % 2 == 1 or not content:find("\\u", 1, true) then
    return nil
  end
  local toks = tokens(search)
  local at = 1
  while at <= #content do
    local stop = matchAt(toks, content, at)
    if stop then
      local ok, p = search:byte(1) ~= 0x5C or backslashesBefore(content, at) % 2 == 0, at
      for _, t in ipairs(toks) do
        if t.hex and backslashesBefore(content, p) % 2 == 1 then
          ok = false
        end
        p = p + (t.hex and 6 or 1)
      end
      if ok then
        local found = content:sub(at, stop - 1)
        return content:find(found, 1, true) == at and found or nil
      end
    end
    at = at + 1
  end
  return nil
end

-- escapeLike writes new's wide characters as escapes, as found in the file: a
-- character of old gets the digits the file used for it, any other one lowercase
-- digits, or uppercase when the file's escapes use more uppercase letters.
---@param old string old_string
---@param found string what findEscaped found for old
---@param new string
---@return string
function uescape.escapeLike(old, found, new)
  local digits, lower, upper = {}, 0, 0
  local p = 1
  for _, t in ipairs(tokens(old)) do
    if t.hex then
      local d = found:sub(p + 2, p + 5)
      digits[t.unit] = d
      lower = lower + select(2, d:gsub("[a-f]", ""))
      upper = upper + select(2, d:gsub("[A-F]", ""))
      p = p + 6
    else
      p = p + 1
    end
  end
  local out = {}
  for _, t in ipairs(tokens(new)) do
    if t.byte then
      out[#out + 1] = string.char(t.byte)
    else
      out[#out + 1] = "\\u" .. (digits[t.unit] or (upper > lower and t.hex:upper() or t.hex))
    end
  end
  return table.concat(out)
end

return uescape
