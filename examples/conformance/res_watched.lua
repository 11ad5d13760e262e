-- Conformance (resources-subscribe, resources-unsubscribe): a resource clients
-- subscribe to. Its subscribers are sent notifications/resources/updated when
-- this file is saved, and when a tool says it changed
-- (ctx:resourceUpdated("test://watched-resource"), as notify_watched.lua does).
local time = require("time")

---@type luatool.Resource
return {
  kind = "resource",
  uri = "test://watched-resource",
  name = "watched-resource",
  description = "A resource that a client may subscribe to",
  mimeType = "text/plain",
  read = function()
    return "Watched resource content, read at " .. time.format(time.now())
  end,
}
