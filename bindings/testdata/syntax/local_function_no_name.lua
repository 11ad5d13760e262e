local function (x) return x end
