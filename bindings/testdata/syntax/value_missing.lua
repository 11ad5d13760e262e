local x = }
