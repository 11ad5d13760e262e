-- GitHubIssues lists the open issues of a GitHub repository through its REST API.
-- It shows what a tool that calls a web API needs: the host it reaches (network),
-- a secret the host hands it (env), JSON both ways, and its failures told to the
-- model in words it can act on. Run it with a token:
--
--   GITHUB_TOKEN=ghp_... luatool --env GITHUB_TOKEN --tools examples/github \
--     call GitHubIssues '{"repo": "golang/go", "limit": 5}'
--
-- Without --env GITHUB_TOKEN it calls the API anonymously (60 requests an hour).
local http = require("http")
local env = require("env")
local url = require("url")
local json = require("json")

-- The API's address: GitHub's, unless the host hands the tool another in
-- GITHUB_API_URL (a GitHub Enterprise server, whose host must then be added to
-- network below).
local function api()
  return env.get("GITHUB_API_URL") or "https://api.github.com"
end

return {
  name = "GitHubIssues",
  prompt = [[Lists the open issues of a GitHub repository, newest first: number, title,
author and labels. Give the repository as owner/name; narrow the list with labels
(comma-separated) and limit (at most 50).]],
  inputSchema = {
    type = "object",
    properties = {
      repo = { type = "string", pattern = "^[A-Za-z0-9.-]+/[A-Za-z0-9._-]+$", description = "owner/name, such as golang/go" },
      labels = { type = "string", description = "only issues with all these labels, comma-separated" },
      limit = { type = "integer", minimum = 1, maximum = 50, default = 10 },
    },
    required = { "repo" },
    additionalProperties = false,
  },
  outputSchema = {
    type = "object",
    properties = {
      issues = {
        type = "array",
        items = {
          type = "object",
          properties = {
            number = { type = "integer" },
            title = { type = "string" },
            author = { type = "string" },
            labels = { type = "array", items = { type = "string" } },
          },
          required = { "number", "title" },
        },
      },
    },
    required = { "issues" },
  },
  network = { "api.github.com" },

  -- The schema's pattern keeps the name to GitHub's characters; "." and ".." would
  -- still walk the API's paths.
  validateInput = function(input)
    local owner, name = input.repo:match("^([^/]+)/(.+)$")
    if owner == "." or owner == ".." or name == "." or name == ".." then
      return { result = false, message = "repo must be owner/name, such as golang/go" }
    end
    return true
  end,
  isReadOnly = true,
  isConcurrencySafe = true,

  call = function(input)
    local query = { state = "open", per_page = tostring(input.limit or 10), sort = "created" }
    if input.labels then
      query.labels = input.labels
    end
    local headers = { Accept = "application/vnd.github+json", ["X-GitHub-Api-Version"] = "2022-11-28" }
    local token = env.get("GITHUB_TOKEN")
    if token then
      headers.Authorization = "Bearer " .. token
    end
    local r, err = http.get(api() .. "/repos/" .. input.repo .. "/issues?" .. url.encodequery(query),
      { headers = headers, timeout = 15000 })
    if not r then
      error("could not reach GitHub: " .. err, 0)
    end
    if r.status == 404 then
      error("no repository " .. input.repo .. " (or it is private and the token cannot see it)", 0)
    elseif r.status == 403 or r.status == 429 then
      error("GitHub refused the request (" .. r.status .. "): the rate limit is probably spent; try again later", 0)
    elseif r.status ~= 200 or type(r.json) ~= "table" then
      -- GitHub's message says what went wrong, in words the model can act on.
      error("GitHub answered " .. r.status .. ": " .. r.body:sub(1, 300), 0)
    end
    local issues = json.array()
    for _, it in ipairs(r.json) do
      -- The issues endpoint lists pull requests too; they are not issues here.
      if not it.pull_request then
        local labels = json.array()
        for _, l in ipairs(it.labels or {}) do
          labels[#labels + 1] = l.name
        end
        issues[#issues + 1] = { number = it.number, title = it.title, author = it.user and it.user.login, labels = labels }
      end
    end
    return { data = { issues = issues } }
  end,

  mapResult = function(data)
    if #data.issues == 0 then
      return "No open issues."
    end
    local lines = {}
    for _, it in ipairs(data.issues) do
      local line = ("#%d %s"):format(it.number, it.title)
      if it.author then
        line = line .. " (@" .. it.author .. ")"
      end
      if #it.labels > 0 then
        line = line .. " [" .. table.concat(it.labels, ", ") .. "]"
      end
      lines[#lines + 1] = line
    end
    return table.concat(lines, "\n")
  end,
}
