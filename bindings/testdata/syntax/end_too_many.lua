x = function() return 1 end end
