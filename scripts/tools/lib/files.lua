-- files: what the standard file tools (Read, Write, Edit, NotebookEdit, and the search
-- tools) share: how a failure reaches the model, the texts of a missing file and of
-- the read-before-write rule, when a file read earlier is stale, and its line endings.

---@type luatool.fs
local fs = require("fs")
local quote = require("path").quote

local files = {}

-- The texts of the read-before-write rule, in the original's words.
files.NOT_READ = "File has not been read yet. Read it first before writing to it."
files.MODIFIED = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
files.UNEXPECTED = "File has been unexpectedly modified. Read it again before attempting to write it."

-- What the original says of each kind of file its tools show but do not write, by
-- the fs module's info.notText: writing text into it would corrupt binary data or
-- another encoding.
local NOT_TEXT = {
  nul = "has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without a byte-order mark, or text with embedded NULs",
  utf16be = "is UTF-16 big-endian (it starts FE FF), which these tools cannot write",
  not_utf8 = "is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary",
}

-- notTextRefusal is the original's refusal of a change to a file of kind notText.
---@param notText string
function files.notTextRefusal(notText)
  return "File " .. NOT_TEXT[notText] .. ". These tools write UTF-8 (or UTF-16LE behind its byte-order mark) and never convert a file's encoding on their own, so nothing was written. If the file is text, make the change with a shell command that reads and writes it in its own encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it first, then Write it."
end

-- notTextNote is the note that Read adds, in the original's words, after what it
-- shows of a file of kind notText.
---@param notText string
function files.notTextNote(notText)
  local shown = notText == "not_utf8" and " Its undecodable bytes show above as U+FFFD." or ""
  return "\n\n[This file " .. NOT_TEXT[notText] .. "." .. shown .. " Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"
end

-- CURRENT ends the success text of Write and Edit, as in the original: the model
-- knows the file's new content without reading it back.
files.CURRENT = " (file state is current in your context — no need to Read it back)"

-- given is a path as the model gave it, without the white space around it, which
-- the original drops before it resolves a path. The file tools read every path
-- through it, getPath included, so that permission rules see the file the call
-- opens.
---@param p string
---@return string
function files.given(p)
  return (p:gsub("^%s+", ""):gsub("%s+$", ""))
end

-- fail raises msg as the call's error text, for the model; level 0 keeps Lua's
-- position out of the message.
---@param msg string
function files.fail(msg)
  error(msg, 0)
end

-- cwdNote reminds the model where relative paths start.
---@param ctx luatool.Context
function files.cwdNote(ctx)
  return "Note: your current working directory is " .. ctx.cwd .. "."
end

-- similarFile finds a file next to path with the same name but another extension,
-- for a "Did you mean" hint; it returns the other file's name alone, as the original
-- names it.
---@param path string
---@return string?
function files.similarFile(path)
  local dir, name = path:match("^(.*)/([^/]+)$")
  if not dir then
    return nil
  end
  if dir == "" then
    dir = "/"
  end
  local stem = name:match("^(.+)%.[^.]*$") or name
  for _, other in ipairs(fs.list(dir) or {}) do
    if other ~= name and (other:match("^(.+)%.[^.]*$") or other) == stem then
      return other
    end
  end
  return nil
end

-- missingText is the error of a path with no file, with a hint at a file of the same
-- name and another extension.
---@param path string
---@param ctx luatool.Context
function files.missingText(path, ctx)
  local msg = "File does not exist. " .. files.cwdNote(ctx)
  local similar = files.similarFile(path)
  if similar then
    msg = msg .. " Did you mean " .. similar .. "?"
  end
  return msg
end

-- underFile tells whether path, which fs found missing, lies under a file: the
-- nearest of its directories that exists is not a directory, which the system
-- reports as ENOTDIR.
---@param path string an absolute path
---@return boolean
function files.underFile(path)
  local dir = path:match("^(.+)/[^/]*$")
  while dir do
    local info = fs.stat(dir)
    if info then
      return not info.isDir
    end
    dir = dir:match("^(.+)/[^/]*$")
  end
  return false
end

-- notDirText is the original's text for an operation (the system call, "stat" or
-- "open") on a path under a file.
---@param syscall string
---@param path string
function files.notDirText(syscall, path)
  return ("ENOTDIR: not a directory, %s '%s'"):format(syscall, quote(path))
end

-- refuseLink fails, in the original's words, when path is a symbolic link: Write
-- and Edit change a link's target only when given the target's own path.
---@param path string
function files.refuseLink(path)
  local info = fs.lstat(path)
  if info and info.isLink then
    files.fail(("Refusing to write %s: it is a symbolic link. Write to the link's target path instead: %s."):format(
      quote(path), quote(info.target)))
  end
end

-- stale tells whether a file (info, from fs.read) changed since the model read it
-- (entry): its content is not the one read, whatever its modification time says.
---@param entry luatool.FileState
---@param info luatool.ReadInfo
function files.stale(entry, info)
  return info.hash ~= entry.hash
end

-- isCRLF tells whether a file's lines end in "\r\n" more often than in a bare "\n",
-- so that a tool rewriting it keeps its line endings.
---@param raw string
---@return boolean
function files.isCRLF(raw)
  local crlf = select(2, raw:gsub("\r\n", ""))
  local lf = select(2, raw:gsub("\n", "")) - crlf
  return crlf > lf
end

-- searchedPath returns the stat of the path a search tool was given (given, as the
-- model wrote it, at abs), failing the call as the original does when it is missing:
-- "<what> does not exist: <given>. Note: your current working directory is ...".
---@param given string
---@param abs string
---@param ctx luatool.Context
---@param what string "Path" or "Directory"
---@return luatool.FileInfo
function files.searchedPath(given, abs, ctx, what)
  local info, err, code = fs.stat(abs)
  if not info then
    if code == "notfound" then
      files.fail(what .. " does not exist: " .. given .. ". " .. files.cwdNote(ctx))
    end
    files.fail(err)
  end
  return info
end

-- searchRejected fails a Grep or Glob call on a query ripgrep would refuse (code
-- "badpattern" or "badtype" of the grep and glob modules, whose message is
-- ripgrep's), in the original's words; any other failure with its own message.
---@param msg string
---@param code string?
function files.searchRejected(msg, code)
  if code == "badpattern" or code == "badtype" then
    files.fail("Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: " .. msg)
  end
  files.fail(msg)
end

return files
