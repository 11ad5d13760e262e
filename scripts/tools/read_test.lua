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

-- The original's JSON parser's messages, as its Read reports them for these notebooks
-- (recorded from Claude Code 2.1.328).
local JSON_ERRORS = {
  { "{} x", "Unable to parse JSON string" },
  { "[1]]", "Unable to parse JSON string" },
  { "[1,]", "Unexpected comma at the end of array expression" },
  { "{\"a\":1", "Expected '}'" },
  { "[", "Unexpected EOF" },
  { "\"a\\q\"", "Invalid escape character q" },
  { "01", "Unable to parse JSON string" },
  { "-", "Invalid number" },
  { "1.", "Invalid digits after decimal point" },
  { "tru", "Unexpected identifier \"tru\"" },
  { "{\"a\":tru}", "Unexpected identifier \"tru\"" },
  { "[1 2]", "Expected ']'" },
  { "{\"a\"}", "Expected ':' before value in object property definition" },
  { "{'a':1}", "Single quotes (') are not allowed in JSON" },
  { " \n\t", "Unexpected EOF" },
  { "1e", "Unable to parse JSON string" },
  { "\"\\u12\"", "\\u must be followed by 4 hex digits" },
  { "\"a\tb\"", "Unterminated string" },
  { "#", "Unrecognized token '#'" },
  { "{,}", "Expected '}'" },
  { "{\"a\"::1}", "Unexpected token ':'" },
  { "{\"cells\": [{\"source\": \"x\"", "Expected '}'" },
  { "\239\187\191{}", "Unrecognized token '\239\187\191'" },
  { "truex", "Unable to parse JSON string" },
  { "{1:2}", "Expected '}'" },
  { "[,1]", "Unexpected token ','" },
  { "\"a\nb\"", "Unterminated string" },
  { "NULL", "Unexpected identifier \"NULL\"" },
  { "+1", "Unrecognized token '+'" },
  { "Infinity", "Unexpected identifier \"Infinity\"" },
  { "NaN", "Unexpected identifier \"NaN\"" },
  { "-.5", "Invalid number" },
  { "\"\\", "Unterminated string" },
  { "}", "Unexpected token '}'" },
  { "{not json\n", "Expected '}'" },
  { "{", "Expected '}'" },
  { "[1, 2", "Expected ']'" },
  { "{\"cells\": [],}", "Property name must be a string literal" },
  { "", "Unexpected EOF" },
  { "{\"cells\": \"abc", "Unterminated string" },
  { "{\"a\" 1}", "Expected ':' before value in object property definition" },
  { "{\"cells\": ]}", "Unexpected token ']'" },
}

test.case("a notebook that is not JSON is reported in the original's parser's words", function(t)
  for i, c in ipairs(JSON_ERRORS) do
    local name = ("bad%d.ipynb"):format(i)
    t:write(name, c[1])
    local r = t:call("Read", { file_path = t:path(name) })
    assert.eq(r.text, "Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): JSON Parse error: " .. c[2])
  end
end)

test.case("JSON that is not a notebook is reported as the original does", function(t)
  for i, text in ipairs({ "42", "null", '{"metadata": {}}', '{"cells": [3]}', '{"cells": [{"source": 1}]}', '{"cells": [{"source": ["a", 2]}]}' }) do
    local name = ("nn%d.ipynb"):format(i)
    t:write(name, text)
    local r = t:call("Read", { file_path = t:path(name) })
    assert.eq(r.text, 'Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects, each with a string or string-array "source").')
  end
end)

test.case("sloppy offsets and limits are mended as the original mends them", function(t)
  t:write("n.txt", "a\nb\nc\nd\n")
  local function read(input)
    input.file_path = t:path("n.txt")
    local r = t:call("Read", input)
    return r.text
  end
  local whole = "1\ta\n2\tb\n3\tc\n4\td\n5\t"
  assert.eq(read({ length = 2 }), "1\ta\n2\tb")
  assert.eq(read({ length = "2" }), "1\ta\n2\tb")
  assert.eq(read({ length = 3, limit = 1 }), "1\ta")
  assert.eq(read({ length = 0 }), whole)
  assert.eq(read({ length = "all" }), whole)
  assert.eq(read({ description = "the file" }), whole)
  assert.eq(read({ offset = { 2 }, limit = { 1 } }), "2\tb")
  assert.eq(read({ offset = { "3" } }), "3\tc\n4\td\n5\t")
  assert.eq(read({ offset = -2, limit = 1 }), "1\ta")
  assert.eq(read({ offset = " -1 " }), whole)
  assert.eq(read({ limit = "0" }), whole)
  assert.eq(read({ limit = { -1 } }), whole)
  assert.matches(read({ offset = { 2, 3 } }), "The parameter `offset` type is expected as `number` but provided as `array`")
  assert.eq(read({ offset = "abc", limit = -1 }), "<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe parameter `offset` type is expected as `number` but provided as `string`</tool_use_error>")
  assert.eq(read({ description = "x", bogus = 1 }), "<tool_use_error>InputValidationError: Read failed due to the following issue:\nAn unexpected parameter `bogus` was provided</tool_use_error>")
end)
