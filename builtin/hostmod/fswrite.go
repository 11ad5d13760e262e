package hostmod

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math"
	"os"
	"path"
	"strconv"

	"github.com/luatool/luatool/internal/dirlock"
	"github.com/luatool/luatool/session/filestate"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// Error codes of fs.write, besides those of roots.go.
const (
	codeReadOnly = "readonly" // the calling tool is read-only for its input
	codeStale    = "stale"    // an ifUnchangedSince, ifHash or ifRead condition failed
	codeExists   = "exists"   // ifAbsent was given and the file exists
	codeNotRead  = "notread"  // ifRead was given and the model was not shown the whole file
)

// hashHex is the SHA-256 of b in lower-case hex: the hash of fs.read, fs.lines and
// fs.write.
func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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
	// read, when set, is the session's record of what the model was shown of the
	// file (ifRead): a write is refused unless the model was shown the whole of its
	// current content, or, with partOK, some of it. hasRead is set when there is a
	// record.
	read    filestate.Entry
	ifRead  bool
	partOK  bool
	hasRead bool
	// mkdirs creates missing parent directories.
	mkdirs bool
}

// luaWrite is fs.write(path, content[, {ifUnchangedSince=, ifHash=, ifAbsent=,
// ifRead=, mkdirs=, encoding=}]): replaces the file's content, or creates it, and
// returns its new info (with hash, of the bytes written, encoding and created).
// content is UTF-8 text; encoding=("utf8", "utf8bom", "utf16le" or "utf16be", default
// "utf8") is how the file stores it, with the byte order mark that calls for (see FS).
//
// The conditions are checked, and the file replaced, under a lock that every luatool
// process takes on the file's directory (lockDir), so no other luatool write comes
// between; the content is checked again just before the new file takes the old one's
// place, so that a writer outside luatool that changed it meanwhile is caught too:
//
//   - ifRead=true: the file is what the model was shown: it fails with "notread" when
//     the session's readFileState has no record of the whole file (it was never read,
//     or only in part), and with "stale" when the file's content is no longer the one
//     recorded (an edit elsewhere, even one that keeps the modification time) or the
//     file was deleted since; a file with no record and not there is created;
//     ifRead="part" is the same, except that a record of part of the file will do
//     (an edit of the lines the model saw, as Edit makes), and the file stays
//     recorded as shown in part;
//   - ifUnchangedSince=mtime fails with code "stale" when the file was modified after
//     mtime (Unix seconds, as fs.stat gives it) or no longer exists;
//   - ifHash=sha256hex fails with "stale" when the content has another hash or the
//     file no longer exists;
//   - ifAbsent=true fails with "exists" when the file exists;
//   - mkdirs=true creates the missing parent directories.
//
// The content goes to a hidden temporary file in the same directory, synced, then
// renamed over the file, and the directory synced: readers see the old content or the
// new, never a mix, and a crash leaves one of them whole. Temporary files are left out
// of every listing, and those a killed writer left are removed by the next write of
// the file. An existing file keeps its permission bits. A path that is a symbolic link
// (inside the roots) is written in place through the link instead, to keep the link.
// The write is recorded in the session's readFileState: the model knows what it wrote.
//
// fs.write fails with code "readonly" when the calling tool is read-only for its
// input, and outside a call that may write.
func (rs *rootSet) luaWrite(L *lua.LState) int {
	args := bindings.NewArgs(L, "fs.write")
	p := args.String(1)
	content := args.String(2)
	o := args.Options(3, "ifUnchangedSince", "ifHash", "ifAbsent", "ifRead", "mkdirs", "encoding")
	conds := writeConds{hash: o.String("ifHash", ""), absent: o.Bool("ifAbsent", false), mkdirs: o.Bool("mkdirs", false)}
	switch v, _ := o.Value("ifRead"); v {
	case lua.LNil, lua.LFalse:
	case lua.LTrue:
		conds.ifRead = true
	case lua.LString("part"):
		conds.ifRead, conds.partOK = true, true
	default:
		got := v.Type().String()
		if str, ok := v.(lua.LString); ok {
			got = strconv.Quote(string(str))
		}
		args.Error(3, "option 'ifRead': true, false or \"part\" expected, got "+got)
	}
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
	call := bindings.CurrentCall(L)
	if call == nil || call.Access < bindings.AccessWrite {
		return push(L, newOpError(codeReadOnly, "cannot write %s: the calling tool is read-only for this input", rs.abs(p, "")))
	}
	ctx := contextOf(L)
	if err := ctx.Err(); err != nil {
		return push(L, newOpError(codeCancelled, "write cancelled: %v", err))
	}
	var info map[string]any
	err := rs.do(p, func(r *os.Root, loc location) error {
		if conds.ifRead && call.Files != nil {
			conds.read, conds.hasRead = call.Files.Get(loc.abs)
		}
		raw, err := encodeText([]byte(content), enc)
		if err != nil {
			return err
		}
		if dir := path.Dir(loc.name); conds.mkdirs && dir != "." {
			if err := r.MkdirAll(dir, 0o755); err != nil {
				return innermost(err)
			}
		}
		unlock, err := lockDir(ctx, r, path.Dir(loc.name))
		if err != nil {
			return err
		}
		defer unlock()
		info, err = writeFile(r, loc, raw, conds)
		if err == nil {
			info["encoding"] = enc
			if call.Files != nil {
				// The model knows what it wrote; after an edit of a file it was shown in
				// part, it still knows only part of it.
				partial := conds.partOK && conds.hasRead && conds.read.Partial
				call.Files.Set(loc.abs, filestate.Entry{Hash: info["hash"].(string), Mtime: info["mtime"].(float64), Partial: partial})
			}
		}
		return err
	})
	if err != nil {
		return push(L, err)
	}
	pushValue(L, info)
	return 1
}

// writeFile checks conds against the file loc names and writes content to it. The
// caller holds the lock of the file's directory.
func writeFile(r *os.Root, loc location, content []byte, conds writeConds) (map[string]any, error) {
	st, err := r.Stat(loc.name)
	exists := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if conds.hasSince || conds.hash != "" || (conds.ifRead && conds.hasRead) {
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
	case conds.ifRead && (!conds.hasRead || (conds.read.Partial && !conds.partOK)):
		return nil, newOpError(codeNotRead, "%s has not been read in full", loc.abs)
	case conds.hasSince && mtimeSeconds(st.ModTime()) > conds.unchangedSince:
		return nil, newOpError(codeStale, "%s has been modified since %v", loc.abs, conds.unchangedSince)
	}
	// expected is the content the file must still have when it is replaced.
	expected := conds.hash
	if conds.ifRead && exists {
		if expected != "" && expected != conds.read.Hash {
			return nil, newOpError(codeStale, "%s has been modified: its content is not the one expected", loc.abs)
		}
		expected = conds.read.Hash
	}
	unchanged := func() error {
		if !exists || expected == "" {
			return nil
		}
		old, err := r.ReadFile(loc.name)
		if err != nil {
			return err
		}
		if hashHex(old) != expected {
			return newOpError(codeStale, "%s has been modified: its content is not the one expected", loc.abs)
		}
		return nil
	}
	if err := unchanged(); err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o644)
	if exists {
		mode = st.Mode().Perm()
	}
	if lst, lerr := r.Lstat(loc.name); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
		err = r.WriteFile(loc.name, content, mode)
	} else {
		err = replaceFile(r, loc.name, content, mode, exists, unchanged)
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

// replaceFile writes content to a new temporary file next to name, synced, checks
// with unchanged that name still holds what the caller expects, renames the
// temporary file over name and syncs the directory. chmod sets mode exactly (the
// umask narrows the mode of a new file), as an existing file's mode must be kept.
// Temporary files of name that a killed writer left are removed first: the caller
// holds the directory's lock, so no live write of name owns them.
func replaceFile(r *os.Root, name string, content []byte, mode fs.FileMode, chmod bool, unchanged func() error) error {
	dir := path.Dir(name)
	if entries, err := fs.ReadDir(r.FS(), dir); err == nil {
		for _, e := range entries {
			if tempNameOf(e.Name(), path.Base(name)) {
				r.Remove(path.Join(dir, e.Name()))
			}
		}
	}
	tmp := tempName(name)
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
		err = unchanged()
	}
	if err == nil {
		err = r.Rename(tmp, name)
	}
	if err != nil {
		r.Remove(tmp)
		return err
	}
	return syncDir(r, dir)
}

// lockDir takes the lock every luatool process (and every write of this one) takes
// on a directory before it checks and replaces a file in it (package dirlock),
// waiting until it is free or ctx ends.
func lockDir(ctx context.Context, r *os.Root, dir string) (unlock func(), err error) {
	d, err := r.Open(dir)
	if err != nil {
		return nil, err
	}
	release, err := dirlock.Lock(ctx, d)
	if err != nil {
		d.Close()
		if ctx.Err() != nil {
			return nil, newOpError(codeCancelled, "write cancelled while another write held %s: %v", dir, ctx.Err())
		}
		return nil, err
	}
	return func() {
		release()
		d.Close()
	}, nil
}
