local test = require("test")
local assert = require("assert")

-- The original's texts for URLs WebFetch refuses before fetching anything
-- (groundtruth-newtools.md, webfetch): no network is needed for these.

local NO_DOT = "WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server, use Bash with curl instead."

local function fetch(t, url, opts)
  return t:call("WebFetch", { url = url, prompt = "What is the heading of this page?" }, opts)
end

test.case("localhost and names without a dot are refused without asking", function(t)
  for _, url in ipairs({ "http://localhost:42313/page.html", "https://fixture:42313/page.html", "http://[::1]/" }) do
    local r = fetch(t, url)
    assert.eq(r.isError, true)
    assert.eq(r.asked, false)
    assert.eq(r.text, NO_DOT)
  end
end)

test.case("other protocols are refused", function(t)
  local r = fetch(t, "ftp://fixture.test:42313/x")
  assert.eq(r.isError, true)
  assert.eq(r.text, "Unsupported protocol ftp:")
end)

test.case("credentials in the URL are refused", function(t)
  local r = fetch(t, "https://user:pw@fixture.test:42313/page.html")
  assert.eq(r.isError, true)
  assert.eq(r.text, "Invalid URL")
end)

test.case("what is not a URL is an input error", function(t)
  local r = fetch(t, "not a url")
  assert.eq(r.stage, "validate")
  assert.eq(r.text, '<tool_use_error>InputValidationError: [\n  {\n    "code": "invalid_format",\n    "format": "url",\n    "path": [\n      "url"\n    ],\n    "message": "Invalid URL"\n  }\n]</tool_use_error>')
end)

test.case("a URL over 2000 characters is an input error", function(t)
  local r = fetch(t, "https://fixture.test:42313/page.html?q=" .. ("a"):rep(2000))
  assert.eq(r.stage, "validate")
  assert.eq(r.text, '<tool_use_error>InputValidationError: [\n  {\n    "code": "custom",\n    "path": [\n      "url"\n    ],\n    "message": "URL is longer than 2000 characters"\n  }\n]</tool_use_error>')
end)

test.case("the prompt is required", function(t)
  local r = t:call("WebFetch", { url = "https://fixture.test/" })
  assert.eq(r.stage, "input")
  assert.matches(r.text, "The required parameter `prompt` is missing")
end)

test.case("each host needs a permission, even though the tool only reads", function(t)
  local r = fetch(t, "https://docs.example.com/page.html")
  assert.eq(r.asked, true)
  assert.eq(r.stage, "permission")
  assert.eq(r.text, "Permission to use WebFetch has been denied.")
end)

test.case("a loopback address is refused even when the call is allowed", function(t)
  local r = fetch(t, "https://127.0.0.1:1/page.html", { answer = "allow" })
  assert.eq(r.asked, true)
  assert.eq(r.isError, true)
  assert.matches(r.text, "^127%.0%.0%.1 is a loopback address: tools reach loopback, private, link%-local and cloud metadata addresses only when the host's network allow list names")
end)
