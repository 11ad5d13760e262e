package hostmod

import (
	"strings"
	"testing"
)

// TestGuardObjectStores: the object stores of a repository whose work tree may hide
// something are hidden, a submodule's too, and its .git walked; a repository with
// nothing hidden is left as it was.
func TestGuardObjectStores(t *testing.T) {
	secret := "/w/repo/secret"
	acc := guardObjectStores(commandAccess{
		hidden: func(p string) bool { return p == secret || strings.HasPrefix(p, secret+"/") },
		hiddenBelow: func(d string) bool {
			return d == secret || strings.HasPrefix(secret, d+"/") || strings.HasPrefix(d, secret+"/")
		},
	})
	for p, want := range map[string]bool{
		"/w/repo/secret/key.txt":                   true,
		"/w/repo/.git/objects":                     true,
		"/w/repo/.git/objects/ab/cdef":             true,
		"/w/repo/.git/modules/sub/objects/pack/p1": true,
		"/w/repo/.git/refs/heads/main":             false,
		"/w/repo/.git":                             false,
		"/w/other/.git/objects":                    false, // nothing hidden in that work tree
		"/w/repo/readme.txt":                       false,
	} {
		if got := acc.hidden(p); got != want {
			t.Errorf("hidden(%s) = %v, want %v", p, got, want)
		}
	}
	for d, want := range map[string]bool{"/w/repo/.git": true, "/w/repo/.git/modules": true, "/w/other/.git": false, "/w/other": false} {
		if got := acc.hiddenBelow(d); got != want {
			t.Errorf("hiddenBelow(%s) = %v, want %v", d, got, want)
		}
	}
	if acc := guardObjectStores(commandAccess{}); acc.hidden != nil || acc.hiddenBelow != nil {
		t.Error("a call that hides nothing must stay without predicates")
	}
}
