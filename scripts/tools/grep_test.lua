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

local PATH_NOTE = "Note: Grep's parameter for where to search is named `path`. "

test.case("file_path, -l, -c and -r are read as the original reads them, and the result says so", function(t)
  t:write("d/a.txt", "hit\n")
  t:write("b.txt", "hit\n")
  local r = t:call("Grep", { pattern = "hit", file_path = "d" })
  assert.eq(r.text, "Found 1 file\nd/a.txt\n\n" .. PATH_NOTE .. "`file_path` was read as `path`.")
  r = t:call("Grep", { pattern = "hit", file_path = "d", path = "d", ["-c"] = true, ["-r"] = "true" })
  assert.eq(r.text, "d/a.txt:1\n\nFound 1 total occurrence across 1 file.\n\n" .. PATH_NOTE ..
    "`file_path` repeated `path` and was ignored. `-c` is not a Grep parameter and was read as `output_mode: \"count\"`. " ..
    "`-r` was ignored: Grep always searches a directory recursively.")
  r = t:call("Grep", { pattern = "hit", ["-l"] = "true", output_mode = "files_with_matches" })
  assert.eq(r.text, "Found 2 files\nb.txt\nd/a.txt\n\nNote: `-l` repeated `output_mode` and was ignored.")
end)

test.case("a mended input that is still invalid is judged as it was sent", function(t)
  for _, input in ipairs({
    { pattern = "x", file_path = "d", path = "e" },
    { pattern = "x", ["-l"] = true, ["-c"] = true },
    { pattern = "x", ["-l"] = true, output_mode = "content" },
    { pattern = "x", ["-r"] = false },
    { pattern = "x", ["-r"] = true, ["-w"] = true },
    { pattern = "x", file_path = "" },
    { file_path = "d", ["-r"] = true },
  }) do
    local r = t:call("Grep", input)
    assert.eq(r.stage, "input", r.text)
    assert.matches(r.text, "InputValidationError: Grep failed")
  end
  local r = t:call("Grep", { pattern = "x", file_path = "d", ["-w"] = true })
  assert.matches(r.text, "unexpected parameter `file_path`")
end)

test.case("a path under file_path meets the same checks, and a failure has no note", function(t)
  local r = t:call("Grep", { pattern = "x", file_path = "/etc" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "outside")
  assert.eq(r.text, t:call("Grep", { pattern = "x", path = "/etc" }).text)
  r = t:call("Grep", { pattern = "x", file_path = "nope", ["-c"] = true })
  assert.eq(r.isError, true)
  assert.matches(r.text, "^Path does not exist: nope%. Note: your current working directory is /.+%.$")
end)
