package hostmod

// fileTypes maps the names grep's type option accepts to file-name globs: the common
// part of ripgrep's built-in type list (rg --type-list), under the same names. It
// builds the map afresh, so that no caller can change another's.
func fileTypes() map[string][]string {
	return map[string][]string{
		"asm":        {"*.asm", "*.s", "*.S"},
		"c":          {"*.c", "*.h", "*.H"},
		"clojure":    {"*.clj", "*.cljc", "*.cljs", "*.cljx", "*.edn"},
		"cmake":      {"*.cmake", "CMakeLists.txt"},
		"cpp":        {"*.C", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.h", "*.H", "*.hh", "*.hpp", "*.hxx", "*.h++", "*.inl"},
		"cs":         {"*.cs"},
		"csharp":     {"*.cs"},
		"css":        {"*.css", "*.scss"},
		"csv":        {"*.csv"},
		"dart":       {"*.dart"},
		"docker":     {"*Dockerfile*", "*.dockerfile"},
		"elixir":     {"*.ex", "*.eex", "*.exs", "*.heex", "*.leex"},
		"erlang":     {"*.erl", "*.hrl"},
		"fish":       {"*.fish"},
		"go":         {"*.go"},
		"gradle":     {"*.gradle", "*.gradle.kts"},
		"graphql":    {"*.graphql", "*.graphqls"},
		"haskell":    {"*.hs", "*.lhs", "*.cabal"},
		"html":       {"*.htm", "*.html", "*.ejs"},
		"ini":        {"*.ini", "*.cfg"},
		"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":         {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
		"json":       {"*.json", "*.jsonl", "*.ndjson", "composer.lock"},
		"julia":      {"*.jl"},
		"kotlin":     {"*.kt", "*.kts"},
		"less":       {"*.less"},
		"lua":        {"*.lua"},
		"make":       {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "*.mk", "*.mak"},
		"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"md":         {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"nix":        {"*.nix"},
		"objc":       {"*.h", "*.m"},
		"ocaml":      {"*.ml", "*.mli", "*.mll", "*.mly"},
		"perl":       {"*.perl", "*.pl", "*.PL", "*.plh", "*.plx", "*.pm", "*.t"},
		"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
		"powershell": {"*.ps1", "*.psd1", "*.psm1"},
		"proto":      {"*.proto"},
		"py":         {"*.py", "*.pyi"},
		"python":     {"*.py", "*.pyi"},
		"r":          {"*.R", "*.r", "*.Rmd", "*.Rnw"},
		"rb":         {"*.rb", "*.gemspec", "Gemfile", "Rakefile", ".irbrc"},
		"ruby":       {"*.rb", "*.gemspec", "Gemfile", "Rakefile", ".irbrc"},
		"rust":       {"*.rs"},
		"sass":       {"*.sass", "*.scss"},
		"scala":      {"*.scala", "*.sbt"},
		"sh":         {"*.bash", "*.bashrc", ".bash_profile", ".bash_login", ".profile", "*.sh", "*.zsh", ".zshrc", "*.ksh"},
		"sql":        {"*.sql", "*.psql"},
		"svelte":     {"*.svelte"},
		"swift":      {"*.swift"},
		"tex":        {"*.tex", "*.ltx", "*.cls", "*.sty", "*.bib"},
		"tf":         {"*.tf", "*.tfvars", "*.tf.json"},
		"toml":       {"*.toml", "Cargo.lock"},
		"ts":         {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"typescript": {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"txt":        {"*.txt"},
		"vim":        {"*.vim", ".vimrc", ".gvimrc"},
		"xml":        {"*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt", "*.svg", "*.rss", "*.plist"},
		"yaml":       {"*.yaml", "*.yml"},
		"zig":        {"*.zig"},
		"zsh":        {"*.zsh", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout"},
	}
}

// typeGlobs returns the file-name globs of a file type, or an opError with
// ripgrep's message (the original passes it on as it is).
func typeGlobs(name string) ([]nameGlob, error) {
	globs, ok := fileTypes()[name]
	if !ok {
		return nil, newOpError(codeBadType, "unrecognized file type: %s", name)
	}
	out := make([]nameGlob, len(globs))
	for i, g := range globs {
		out[i] = newNameGlob(g, false)
	}
	return out, nil
}
