local test = require("test")
local assert = require("assert")
local json = require("json")

local NOTEBOOK = json.encode({
  cells = {
    { cell_type = "markdown", id = "intro", metadata = {}, source = { "# Title\n", "text" } },
    { cell_type = "code", id = "code1", metadata = {}, execution_count = 1, source = "print('hi')",
      outputs = { { output_type = "stream", name = "stdout", text = { "hi\n" } } } },
  },
  metadata = { language_info = { name = "python" } },
  nbformat = 4,
  nbformat_minor = 5,
}, { indent = 1 }) .. "\n"

local function edit(t, input)
  input.notebook_path = t:path("nb.ipynb")
  return t:call("NotebookEdit", input, { answer = "allow" })
end

test.case("needs a Read first", function(t)
  t:write("nb.ipynb", NOTEBOOK)
  local r = edit(t, { cell_id = "code1", new_source = "x" })
  assert.eq(r.isError, true)
  assert.eq(r.text, "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>")
  assert.eq(t:read("nb.ipynb"), NOTEBOOK)
end)

test.case("replaces a cell and clears its outputs", function(t)
  t:write("nb.ipynb", NOTEBOOK)
  t:call("Read", { file_path = t:path("nb.ipynb") })
  local r = edit(t, { cell_id = "code1", new_source = "print('bye')" })
  assert.eq(r.text, "Updated cell code1 with print('bye')")
  local nb = json.decode(t:read("nb.ipynb"))
  assert.eq(nb.cells[2].source, "print('bye')")
  assert.eq(#nb.cells[2].outputs, 0)
  assert.eq(nb.cells[2].execution_count, json.null)
  -- Untouched cells keep their source as it was stored.
  assert.eq(nb.cells[1].source, { "# Title\n", "text" })
end)

test.case("inserts and deletes cells", function(t)
  t:write("nb.ipynb", NOTEBOOK)
  t:call("Read", { file_path = t:path("nb.ipynb") })
  local r = edit(t, { cell_id = "intro", new_source = "## New", cell_type = "markdown", edit_mode = "insert" })
  local id = r.text:match("^Inserted cell (%x+) with ## New$")
  assert.eq(#id, 8)
  assert.eq(edit(t, { cell_id = "cell-0", new_source = "", edit_mode = "delete" }).text, "Deleted cell cell-0")
  local nb = json.decode(t:read("nb.ipynb"))
  assert.eq(#nb.cells, 2)
  assert.eq(nb.cells[1].id, id)
  assert.matches(t:call("Read", { file_path = t:path("nb.ipynb") }).text,
    '^<cell id="' .. id .. '"><cell_type>markdown</cell_type>## New</cell id="' .. id .. '">')
end)

test.case("names what is wrong with the cell", function(t)
  t:write("nb.ipynb", NOTEBOOK)
  t:call("Read", { file_path = t:path("nb.ipynb") })
  assert.eq(edit(t, { cell_id = "nope", new_source = "y" }).text, '<tool_use_error>Cell with ID "nope" not found in notebook.</tool_use_error>')
  assert.eq(edit(t, { cell_id = "cell-7", new_source = "y" }).text, "<tool_use_error>Cell with index 7 does not exist in notebook.</tool_use_error>")
  assert.eq(edit(t, { new_source = "y", edit_mode = "insert" }).text, "<tool_use_error>Cell type is required when using edit_mode=insert.</tool_use_error>")
  assert.eq(t:read("nb.ipynb"), NOTEBOOK)
end)

test.case("asks, and a refusal writes nothing", function(t)
  t:write("nb.ipynb", NOTEBOOK)
  t:call("Read", { file_path = t:path("nb.ipynb") })
  local r = t:call("NotebookEdit", { notebook_path = t:path("nb.ipynb"), cell_id = "code1", new_source = "x" })
  assert.eq(r.asked, true)
  assert.eq(r.isError, true)
  assert.eq(t:read("nb.ipynb"), NOTEBOOK)
end)
