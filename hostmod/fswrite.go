package hostmod

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"io/fs"
	"math"
	"os"
	"path"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// Error codes of fs.write, besides those of roots.go.
const (
	codeReadOnly = "readonly" // the calling tool is read-only for its input
	codeStale    = "stale"    // an ifUnchangedSince or ifHash condition failed
	codeExists   = "exists"   // ifAbsent was given and the file exists
)

// hashHex is the SHA-256 of b in lower-case hex: the hash of fs.read, fs.lines and
// fs.write.
func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// writeLocks serialise the compare-and-write of fs.write per file: a path hashes to
// one of these mutexes, so that writes to one file never interleave while the set
// stays fixed in size (two paths may share a mutex, which only costs waiting).
var writeLocks [64]sync.Mutex

func lockPath(p string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(p))
	return &writeLocks[h.Sum32()%uint32(len(writeLocks))]
}

// writeConds are the conditions of fs.write, checked under the file's lock just
// before writing.
type writeConds struct {
	// unchangedSince, when set, refuses a file modified after it (Unix seconds).
	unchangedSince float64
	hasSince       bool
	// hash, when set, refuses a file whose content has another SHA-256.
	hash string
	// absent refuses an existing file.
	absent bool
	// mkdirs creates missing parent directories.
	mkdirs bool
}

// luaWrite is fs.write(path, content[, {ifUnchangedSince=, ifHash=, ifAbsent=,
// mkdirs=, encoding=}]): replaces the file's content, or creates it, and returns its
// new info (with hash, of the bytes written, encoding and created). content is UTF-8 text;
// encoding=("utf8", "utf8bom", "utf16le" or "utf16be", default "utf8") is how the
// file stores it, with the byte order mark that calls for (see FS). The conditions are checked and the file written under one
// lock per file, so no other fs.write comes between:
//
//   - ifUnchangedSince=mtime fails with code "stale" when the file was modified after
//     mtime (Unix seconds, as fs.stat gives it) or no longer exists;
//   - ifHash=sha256hex fails with "stale" when the content has another hash or the
//     file no longer exists;
//   - ifAbsent=true fails with "exists" when the file exists;
//   - mkdirs=true creates the missing parent directories.
//
// The content goes to a temporary file in the same directory, which is then renamed
// over the file, so readers see the old content or the new, never a mix; an existing
// file keeps its permission bits. A path that is a symbolic link (inside the roots)
// is written in place through the link instead, to keep the link.
//
// fs.write fails with code "readonly" when the calling tool declared itself
// read-only for its input, and outside any call.
func (rs *rootSet) luaWrite(L *lua.LState) int {
	args := bindings.NewArgs(L, "fs.write")
	p := args.String(1)
	content := args.String(2)
	o := args.Options(3, "ifUnchangedSince", "ifHash", "ifAbsent", "mkdirs", "encoding")
	conds := writeConds{hash: o.String("ifHash", ""), absent: o.Bool("ifAbsent", false), mkdirs: o.Bool("mkdirs", false)}
	enc := o.String("encoding", encUTF8)
	if !validEncoding(enc) {
		args.Error(3, "option 'encoding': one of utf8, utf8bom, utf16le, utf16be expected, got "+enc)
	}
	if t, ok := L.Get(3).(*lua.LTable); ok {
		switch v := t.RawGetString("ifUnchangedSince").(type) {
		case *lua.LNilType:
		case lua.LNumber:
			if math.IsNaN(float64(v)) {
				args.Error(3, "option 'ifUnchangedSince': a number expected, got nan")
			}
			conds.unchangedSince, conds.hasSince = float64(v), true
		default:
			args.Error(3, "option 'ifUnchangedSince': number expected, got "+v.Type().String())
		}
	}
	if call := bindings.CurrentCall(L); call == nil || call.Access < bindings.AccessWrite {
		return push(L, newOpError(codeReadOnly, "cannot write %s: the calling tool is read-only for this input", rs.abs(p, "")))
	}
	if err := contextOf(L).Err(); err != nil {
		return push(L, newOpError(codeCancelled, "write cancelled: %v", err))
	}
	var info map[string]any
	err := rs.do(p, func(r *os.Root, loc location) error {
		mu := lockPath(rs.lockKey(loc))
		mu.Lock()
		defer mu.Unlock()
		raw, err := encodeText([]byte(content), enc)
		if err != nil {
			return err
		}
		info, err = writeFile(r, loc, raw, conds)
		if err == nil {
			info["encoding"] = enc
		}
		return err
	})
	if err != nil {
		return push(L, err)
	}
	pushValue(L, info)
	return 1
}

// lockKey names the file loc in one form whichever form of its root the caller
// used, so that both take the same lock.
func (rs *rootSet) lockKey(loc location) string {
	for _, d := range rs.dirs {
		if loc.dir == d.given || loc.dir == d.resolved {
			return path.Join(d.resolved, loc.name)
		}
	}
	return path.Join(loc.dir, loc.name)
}

// writeFile checks conds against the file loc names and writes content to it. The
// caller holds the file's lock.
func writeFile(r *os.Root, loc location, content []byte, conds writeConds) (map[string]any, error) {
	if dir := path.Dir(loc.name); conds.mkdirs && dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return nil, innermost(err)
		}
	}
	st, err := r.Stat(loc.name)
	exists := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if conds.hasSince || conds.hash != "" {
			return nil, newOpError(codeStale, "%s has been deleted since it was read", loc.abs)
		}
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, newOpError(codeIsDir, "%s is a directory", loc.abs)
	case !st.Mode().IsRegular():
		return nil, newOpError(codeNotFile, "%s is not a regular file", loc.abs)
	case conds.absent:
		return nil, newOpError(codeExists, "%s already exists", loc.abs)
	case conds.hasSince && mtimeSeconds(st.ModTime()) > conds.unchangedSince:
		return nil, newOpError(codeStale, "%s has been modified since %v", loc.abs, conds.unchangedSince)
	}
	if exists && conds.hash != "" {
		old, err := r.ReadFile(loc.name)
		if err != nil {
			return nil, err
		}
		if hashHex(old) != conds.hash {
			return nil, newOpError(codeStale, "%s has been modified: its content is not the one expected", loc.abs)
		}
	}
	mode := fs.FileMode(0o644)
	if exists {
		mode = st.Mode().Perm()
	}
	if lst, lerr := r.Lstat(loc.name); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
		err = r.WriteFile(loc.name, content, mode)
	} else {
		err = replaceFile(r, loc.name, content, mode, exists)
	}
	if err != nil {
		return nil, err
	}
	st, err = r.Stat(loc.name)
	if err != nil {
		return nil, err
	}
	info := fileInfo(st)
	info["hash"] = hashHex(content)
	info["created"] = !exists
	return info, nil
}

// innermost returns the innermost *fs.PathError that err wraps, or err: os.Root's
// MkdirAll wraps the error of the step that failed (an escape, for one) in another.
func innermost(err error) error {
	var pe *fs.PathError
	for errors.As(err, &pe) && pe.Err != nil {
		var inner *fs.PathError
		if !errors.As(pe.Err, &inner) {
			return pe
		}
		err = inner
	}
	return err
}

// replaceFile writes content to a new temporary file next to name and renames it
// over name. chmod sets mode exactly (the umask narrows the mode of a new file),
// as an existing file's mode must be kept.
func replaceFile(r *os.Root, name string, content []byte, mode fs.FileMode, chmod bool) error {
	var suffix [8]byte
	rand.Read(suffix[:])
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+".tmp-"+hex.EncodeToString(suffix[:]))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && chmod {
		err = r.Chmod(tmp, mode)
	}
	if err == nil {
		err = r.Rename(tmp, name)
	}
	if err != nil {
		r.Remove(tmp)
	}
	return err
}
