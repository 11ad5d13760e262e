local s = "a\tb
