//go:build !unix

package dirlock

import (
	"context"
	"os"
	"sync"
)

// processLock serialises the writers of this process where flock(2) is missing.
var processLock sync.Mutex

// Lock takes a lock that on this system holds within this process only.
func Lock(ctx context.Context, dir *os.File) (unlock func(), err error) {
	processLock.Lock()
	return processLock.Unlock, nil
}
