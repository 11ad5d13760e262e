package hostmod

import (
	"crypto/rand"
	"encoding/hex"
	"path"
	"strings"
)

// An atomic write puts the new content in a temporary file beside its target and
// renames it over the target. Until the rename, or for good when the process dies
// before it, the temporary file is in the directory, so listings and searches skip
// such names (isTempName): a model must never be offered a half-written copy.

// tempMarker comes between the target's name and the random part of a temporary
// file's name.
const tempMarker = ".luatool-tmp-"

// tempRandomLen is the length of the random part: 16 hex digits (64 bits), so that
// concurrent writers of one target never pick the same name.
const tempRandomLen = 16

// tempName returns a name for the temporary file of an atomic write of target (a
// slash-separated path): hidden, in target's directory, ".<base>.luatool-tmp-<16
// random hex digits>". The caller creates it exclusively (O_EXCL) and renames it over
// target.
func tempName(target string) string {
	var random [tempRandomLen / 2]byte
	rand.Read(random[:]) // it never returns an error (it ends the program instead)
	return path.Join(path.Dir(target), "."+path.Base(target)+tempMarker+hex.EncodeToString(random[:]))
}

// isTempName reports whether name, a file name (the last element of a path), has
// the shape tempName gives: a dot, a non-empty target name, the marker and 16
// lowercase hex digits.
func isTempName(name string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok || len(rest) <= len(tempMarker)+tempRandomLen {
		return false
	}
	target, random := rest[:len(rest)-tempRandomLen], rest[len(rest)-tempRandomLen:]
	if !strings.HasSuffix(target, tempMarker) {
		return false
	}
	for _, c := range []byte(random) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// tempNameOf reports whether name, a file name, is that of a temporary file of an
// atomic write of target (a file name too).
func tempNameOf(name, target string) bool {
	return isTempName(name) && len(name) == 1+len(target)+len(tempMarker)+tempRandomLen &&
		strings.HasPrefix(name, "."+target+tempMarker)
}
