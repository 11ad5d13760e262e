function M.f(
