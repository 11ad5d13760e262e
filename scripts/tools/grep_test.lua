local test = require("test")
local assert = require("assert")

test.case("lists the files that match", function(t)
  t:write("a.txt", "alpha\nbeta\n")
  t:write("b.txt", "gamma\n")
  local r = t:call("Grep", { pattern = "alph" })
  assert.eq(r.text, "Found 1 file\na.txt")
end)

test.case("shows matching lines with content mode", function(t)
  t:write("a.txt", "alpha\nbeta\nalphabet\n")
  local r = t:call("Grep", { pattern = "^alpha", output_mode = "content", ["-n"] = true })
  assert.eq(r.text, "a.txt:1:alpha\na.txt:3:alphabet")
end)

test.case("counts with count mode", function(t)
  t:write("a.txt", "x\nx\ny\n")
  local r = t:call("Grep", { pattern = "x", output_mode = "count" })
  assert.matches(r.text, "a%.txt:2")
end)

test.case("a bad regular expression is an error", function(t)
  local r = t:call("Grep", { pattern = "(" })
  assert.eq(r.isError, true)
end)

test.case("a missing path and an unknown type fail the call with the original's texts, unwrapped", function(t)
  local r = t:call("Grep", { pattern = "x", path = "nope" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "^Path does not exist: nope%. Note: your current working directory is /.+%.$")
  r = t:call("Grep", { pattern = "x", type = "nope" })
  assert.eq(r.isError, true)
  assert.eq(r.text, "Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: unrecognized file type: nope")
end)

test.case("an offset past the last entry says so; count sums every file", function(t)
  t:write("a.txt", "x\nx\n")
  t:write("b.txt", "x\n")
  assert.eq(t:call("Grep", { pattern = "x", offset = 5 }).text,
    "No entries at this offset. [Showing results with pagination = offset: 5]")
  assert.eq(t:call("Grep", { pattern = "x", offset = 5, output_mode = "content" }).text,
    "No entries at this offset\n\n[Showing results with pagination = offset: 5]")
  assert.eq(t:call("Grep", { pattern = "x", head_limit = 1, output_mode = "count" }).text,
    "a.txt:2\n\nFound 3 total occurrences across 2 files. with pagination = limit: 1")
  assert.eq(t:call("Grep", { pattern = "zzz", offset = 5 }).text, "No files found")
end)
