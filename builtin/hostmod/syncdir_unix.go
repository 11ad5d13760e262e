//go:build unix

package hostmod

import "os"

// syncDir makes a rename in dir durable: after it, a crash leaves the new file.
func syncDir(r *os.Root, dir string) error {
	f, err := r.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
