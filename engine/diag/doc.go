// Package diag is what luatool finds wrong in the files it loads: a Diagnostic says
// where (a file, and a line when it is known), how severe (an error keeps the file
// from being served; a warning or a notice does not), about which member of the
// Tool contract, and what. Loaders report the problems of their files with it, the
// engine those of the tools it builds and of the permission rules that name no
// tool, and hosts show them (luatool check, the log of luatool serve). The checks of
// a definition (a tool's, a hook file's, a prompt's, a resource's) say what is wrong
// with each member as a MemberError, which becomes a Diagnostic at the member's
// line.
package diag
