-- A tool that says the watched resource changed: the clients subscribed to
-- test://watched-resource (resources/subscribe) are sent
-- notifications/resources/updated, and read it again.

---@type luatool.Tool
return {
  name = "notify_watched",
  prompt = "Tells the clients subscribed to test://watched-resource that it changed.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  call = function(_, ctx)
    ctx:resourceUpdated("test://watched-resource")
    return "test://watched-resource was reported changed"
  end,
}
