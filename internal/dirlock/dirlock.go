// Package dirlock takes the advisory lock that luatool processes share on a
// directory before they check and replace a file in it: file writes (package
// hostmod) and the trust list (luatool trust) alike.
//
// On Unix the lock is flock(2) on the directory itself: it needs no lock file (which
// listings would show), the kernel releases it when the process dies, and a rename
// inside the directory does not move it. Elsewhere it serialises the writers of one
// process only.
package dirlock
