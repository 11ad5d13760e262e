package hostmod

import "strings"

// guardObjectStores hides a repository's object store from a command when a Read
// deny rule may hide something in the repository's work tree. Git keeps every
// committed version of a file there and prints it on request (git show
// HEAD:secret/key.txt, git log -p), whatever the rule hides in the work tree; the
// kernel sandbox sees only the object files. With them hidden, git fails where it
// needs them, and the rule holds (fail closed). The objects of submodules
// (.git/modules/NAME/objects) are hidden in the same way.
func guardObjectStores(acc commandAccess) commandAccess {
	if acc.hidden == nil {
		return acc
	}
	hidden, below := acc.hidden, acc.hiddenBelow
	mayHide := func(dir string) bool { return below == nil || below(dir) }
	acc.hidden = func(p string) bool {
		if hidden(p) {
			return true
		}
		top, inGit, ok := splitGitDir(p)
		return ok && mayHide(top) && hasSegment(inGit, "objects")
	}
	acc.hiddenBelow = func(dir string) bool {
		if mayHide(dir) {
			return true
		}
		// A .git directory is walked, so that its objects get no rule, when its
		// work tree may hide something.
		top, _, ok := splitGitDir(dir)
		return ok && mayHide(top)
	}
	return acc
}

// splitGitDir splits a path at its first .git component: the work tree's top, and
// the rest below .git ("" for .git itself); ok is false for a path with none.
func splitGitDir(p string) (top, inGit string, ok bool) {
	i := strings.Index(p+"/", "/.git/")
	if i < 0 {
		return "", "", false
	}
	return p[:i], strings.TrimPrefix(p[i+len("/.git"):], "/"), true
}

// hasSegment reports whether the slash-separated path p has the component seg.
func hasSegment(p, seg string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if part == seg {
			return true
		}
	}
	return false
}
