//go:build !unix

package hostmod

import "os"

// syncDir does nothing where directories cannot be synced.
func syncDir(r *os.Root, dir string) error { return nil }
