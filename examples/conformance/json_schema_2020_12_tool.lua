-- json_schema_2020_12_tool takes input described with JSON Schema 2020-12's own
-- words: $schema, $defs with a $ref to it, and additionalProperties = false. Keys
-- that are not Lua names are written ["$schema"]. luatool validates the input with
-- the schema as written and lists it unchanged in tools/list.
--
-- Conformance scenario: json-schema-2020-12 (SEP-1613).
local json = require("json")

return {
  name = "json_schema_2020_12_tool",
  prompt = "Echoes a name and an address given in a JSON Schema 2020-12 input.",
  inputSchema = {
    ["$schema"] = "https://json-schema.org/draft/2020-12/schema",
    type = "object",
    ["$defs"] = {
      address = {
        type = "object",
        properties = { street = { type = "string" }, city = { type = "string" } },
      },
    },
    properties = {
      name = { type = "string" },
      address = { ["$ref"] = "#/$defs/address" },
    },
    additionalProperties = false,
  },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input)
    return "JSON Schema 2020-12 tool called with: " .. json.encode(input)
  end,
}
