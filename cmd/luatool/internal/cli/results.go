package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// resultsPrefix starts the name of the temporary directories that hold the results
// too large to show inline, followed by the pid of the process that made it.
const resultsPrefix = "luatool-results-"

// resultsDir returns the directory for this run's persisted results and whether the
// run owns it (and removes it when it ends): --results-dir when given, kept as it is;
// otherwise a new directory under the system's temporary directory, named after this
// process. Directories left by luatool processes that are gone (killed before they
// could remove theirs) are removed first.
func (a *app) resultsDir() (dir string, owned bool, err error) {
	if a.cfg.resultsDir != "" {
		dir, err := filepath.Abs(a.cfg.resultsDir)
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err != nil {
			return "", false, fmt.Errorf("--results-dir: %w", err)
		}
		return dir, false, nil
	}
	sweepStaleResults(os.TempDir())
	dir, err = os.MkdirTemp("", resultsPrefix+strconv.Itoa(os.Getpid())+"-")
	return dir, err == nil, err
}

// sweepStaleResults removes the results directories in tmp whose process has exited.
// A directory whose process is alive, or that belongs to another user, stays.
func sweepStaleResults(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), resultsPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}
