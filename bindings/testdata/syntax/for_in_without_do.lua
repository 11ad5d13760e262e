return {
  call = function(input, ctx)
    for _, p in ipairs(input.paths)
      ctx:log(p)
    end
  end,
}
