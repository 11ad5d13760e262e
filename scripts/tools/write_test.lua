local test = require("test")
local assert = require("assert")

test.case("creates a file when allowed", function(t)
  local r = t:call("Write", { file_path = t:path("dir/new.txt"), content = "one\ntwo\n" }, { answer = "allow" })
  assert.eq(r.isError, false)
  assert.eq(r.asked, true)
  assert.eq(r.text, "File created successfully at: " .. t:path("dir/new.txt") .. " (file state is current in your context — no need to Read it back)")
  assert.eq(t:read("dir/new.txt"), "one\ntwo\n")
end)

test.case("asks, and a refusal writes nothing", function(t)
  local r = t:call("Write", { file_path = t:path("new.txt"), content = "x" })
  assert.eq(r.asked, true)
  assert.eq(r.stage, "permission")
  assert.eq(t:read("new.txt"), nil)
end)

test.case("overwriting needs a Read first", function(t)
  t:write("a.txt", "old\n")
  local r = t:call("Write", { file_path = t:path("a.txt"), content = "new\n" }, { answer = "allow" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "File has not been read yet")
  assert.eq(t:read("a.txt"), "old\n")

  t:call("Read", { file_path = t:path("a.txt") })
  r = t:call("Write", { file_path = t:path("a.txt"), content = "new\n" }, { answer = "allow" })
  assert.eq(r.isError, false, r.text)
  assert.eq(t:read("a.txt"), "new\n")
end)

test.case("a path outside the root is refused", function(t)
  local r = t:call("Write", { file_path = "/etc/luatool-test.txt", content = "x" }, { answer = "allow" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "outside the allowed roots")
end)

local NOTE = "\n\nNote: Write's parameters are named `file_path` and `content`. "
local CURRENT = " (file state is current in your context — no need to Read it back)"

test.case("old names are read as the original reads them, and the result says so", function(t)
  local r = t:call("Write", { path = t:path("p.txt"), file_text = "x\n", description = "d", command = "create",
    file = t:path("p.txt") }, { answer = "allow" })
  assert.eq(r.isError, false, r.text)
  assert.eq(r.text, "File created successfully at: " .. t:path("p.txt") .. CURRENT .. NOTE ..
    "`path` was read as `file_path`. `file_text` was read as `content`. `description` was ignored. " ..
    "`command` was ignored. `file` repeated `file_path` and was ignored.")
  assert.eq(t:read("p.txt"), "x\n")

  r = t:call("Write", { file_path = t:path("q.txt"), content = "y", text = "y", body = "y", file_content = "y" }, { answer = "allow" })
  assert.eq(r.text, "File created successfully at: " .. t:path("q.txt") .. CURRENT .. NOTE ..
    "`file_content` repeated `content` and was ignored. `body` repeated `content` and was ignored. " ..
    "`text` repeated `content` and was ignored.")
end)

test.case("a mended input that is still invalid is judged as it was sent", function(t)
  for _, input in ipairs({
    { path = t:path("a.txt"), content = "x", bogus = 1 },
    { file_path = t:path("a.txt"), content = "x", text = "other" },
    { file_path = t:path("a.txt"), file_text = "x", file_content = "x" },
    { path = 5, content = "x" },
    { file_path = t:path("a.txt"), content = "x", command = "write" },
  }) do
    local r = t:call("Write", input, { answer = "allow" })
    assert.eq(r.stage, "input", r.text)
    assert.matches(r.text, "InputValidationError: Write failed")
  end
  assert.eq(t:read("a.txt"), nil)
end)

test.case("a path under an old name meets the same checks, and a failure has no note", function(t)
  local r = t:call("Write", { path = "/etc/luatool-test.txt", content = "x" }, { answer = "allow" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "outside the allowed roots")
  t:write("old.txt", "old\n")
  r = t:call("Write", { path = t:path("old.txt"), content = "new\n" }, { answer = "allow" })
  assert.eq(r.text, "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>")
  r = t:call("Write", { path = t:path("denied.txt"), content = "x" }, { answer = "deny" })
  assert.eq(r.asked, true)
  assert.eq(t:read("denied.txt"), nil)
end)
