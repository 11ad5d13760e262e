package hostmod

import (
	"crypto/rand"
	"encoding/hex"
	"path"
	"strings"
)

// tempMarker is in the name of every temporary file a write makes.
const tempMarker = ".luatool-tmp-"

// tempName returns a name for a temporary file beside target (a slash path): hidden,
// marked, and random, so that listings can leave it out (isTempName) and two writers
// never share one.
func tempName(target string) string {
	var suffix [8]byte
	rand.Read(suffix[:])
	return path.Join(path.Dir(target), "."+path.Base(target)+tempMarker+hex.EncodeToString(suffix[:]))
}

// isTempName reports whether a base name is that of a temporary file of a write.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// tempNamesOf reports whether a base name is a temporary file of writes to target (a
// base name).
func tempNameOf(name, target string) bool {
	return strings.HasPrefix(name, "."+target+tempMarker)
}
