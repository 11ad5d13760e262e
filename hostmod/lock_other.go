//go:build !unix

package hostmod

import (
	"context"
	"os"
	"sync"
)

// dirLock serialises writes within this process where flock(2) is not available.
var dirLock sync.Mutex

// lockDir takes a lock for writes in dir: on this system only within this process.
func lockDir(ctx context.Context, r *os.Root, dir string) (unlock func(), err error) {
	dirLock.Lock()
	return dirLock.Unlock, nil
}

// syncDir does nothing where directories cannot be synced.
func syncDir(r *os.Root, dir string) error { return nil }
