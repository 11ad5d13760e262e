-- The tests of GitHubIssues never reach GitHub: http and env are stubbed.
local test = require("test")
local assert = require("assert")
local json = require("json")

-- page is what the API answers for the golang/go fixture: two issues and a pull request.
local page = json.encode({
  { number = 3, title = "crash on start", user = { login = "ana" }, labels = { { name = "bug" } } },
  { number = 2, title = "a pull request", user = { login = "bo" }, labels = {}, pull_request = { url = "x" } },
  { number = 1, title = "docs typo", user = { login = "cy" }, labels = {} },
})

-- answering stubs http.get with an API that answers status and body, and records
-- the URL and headers of each request in seen.
local function answering(t, status, body, seen)
  t:stub("http", {
    get = function(u, opts)
      seen[#seen + 1] = { url = u, headers = opts.headers }
      return { status = status, statusText = "", headers = {}, body = body, json = json.decode(body) }
    end,
  })
end

test.case("lists the open issues, without pull requests", function(t)
  local seen = {}
  answering(t, 200, page, seen)
  t:stub("env", { get = function() return nil end })
  local r = t:call("GitHubIssues", { repo = "golang/go", limit = 5 })
  assert.eq(r.text, "#3 crash on start (@ana) [bug]\n#1 docs typo (@cy)")
  assert.eq(#r.data.issues, 2)
  assert.matches(seen[1].url, "^https://api%.github%.com/repos/golang/go/issues%?")
  assert.matches(seen[1].url, "per_page=5")
  assert.eq(seen[1].headers.Authorization, nil)
end)

test.case("sends the token the host hands it", function(t)
  local seen = {}
  answering(t, 200, "[]", seen)
  t:stub("env", { get = function(name) return name == "GITHUB_TOKEN" and "ghp_example_token" or nil end })
  local r = t:call("GitHubIssues", { repo = "golang/go" })
  assert.eq(r.text, "No open issues.")
  assert.eq(seen[1].headers.Authorization, "Bearer ghp_example_token")
end)

test.case("tells the model a repository is missing", function(t)
  answering(t, 404, '{"message": "Not Found"}', {})
  t:stub("env", { get = function() return nil end })
  local r = t:call("GitHubIssues", { repo = "golang/nope" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "no repository golang/nope")
end)

test.case("refuses a repository that is not owner/name", function(t)
  local r = t:call("GitHubIssues", { repo = "golang" })
  assert.eq(r.stage, "input")
end)

test.case("refuses a name that would walk the API's paths", function(t)
  local r = t:call("GitHubIssues", { repo = "golang/.." })
  assert.eq(r.stage, "validate")
  assert.matches(r.text, "owner/name")
end)
