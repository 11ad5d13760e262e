if a then b() elseif then c() end
