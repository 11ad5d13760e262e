local test = require("test")
local assert = require("assert")

test.case("reads a file with line numbers", function(t)
  t:write("notes.txt", "first\nsecond\nthird\n")
  local r = t:call("Read", { file_path = t:path("notes.txt") })
  assert.eq(r.isError, false)
  assert.eq(r.stage, "done")
  assert.matches(r.text, "^%s*1\tfirst\n%s*2\tsecond\n%s*3\tthird")
end)

test.case("reads the lines asked for", function(t)
  t:write("notes.txt", "first\nsecond\nthird\n")
  local r = t:call("Read", { file_path = t:path("notes.txt"), offset = 2, limit = 1 })
  assert.matches(r.text, "2\tsecond")
  assert.eq(r.text:find("first"), nil)
end)

test.case("a missing file is an error result", function(t)
  local r = t:call("Read", { file_path = t:path("missing.txt") })
  assert.eq(r.isError, true)
  assert.matches(r.text, "does not exist")
end)

test.case("an input of the wrong type is refused before the call", function(t)
  local r = t:call("Read", { file_path = 3 })
  assert.eq(r.stage, "input")
  assert.matches(r.text, "InputValidationError")
end)

test.case("needs no permission", function(t)
  t:write("a.txt", "x")
  local r = t:call("Read", { file_path = t:path("a.txt") })
  assert.eq(r.asked, false)
end)

test.case("shows a notebook as its cells with their outputs", function(t)
  t:write("nb.ipynb", [[{"cells": [
    {"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# T\n", "x"]},
    {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": 1, "source": "1 + 1",
     "outputs": [{"output_type": "execute_result", "data": {"text/plain": ["2"]}, "metadata": {}, "execution_count": 1}]}
  ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}]])
  local r = t:call("Read", { file_path = t:path("nb.ipynb"), offset = 2, limit = 1 })
  assert.eq(r.text, '<cell id="m"><cell_type>markdown</cell_type># T\nx</cell id="m">\n<cell id="c">1 + 1</cell id="c">\n\n2')
  assert.eq(r.data.type, "notebook")
end)

test.case("a notebook that is not JSON is an error result", function(t)
  t:write("bad.ipynb", "{ not json")
  local r = t:call("Read", { file_path = t:path("bad.ipynb") })
  assert.eq(r.isError, true)
  assert.matches(r.text, "^Notebook file is not valid JSON %(it may be truncated, corrupted, or still being written%): ")
end)
