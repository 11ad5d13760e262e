package hostmod

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/luatool/luatool/session/filestate"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// FS returns the fs module: access to the files under roots.
//
//	fs.read(path[, {maxBytes=}])                   -> content, info | nil, err, code
//	fs.write(path, content[, {ifUnchangedSince=, ifHash=, ifAbsent=, mkdirs=, encoding=}])
//	                                               -> info          | nil, err, code
//	fs.lines(path[, {offset=, limit=, maxBytes=}]) -> text, info    | nil, err, code
//	fs.stat(path)                                  -> info          | nil, err, code
//	fs.lstat(path)                                 -> info          | nil, err, code
//	fs.exists(path)                                -> boolean[, err]
//	fs.list(dir)                                   -> names         | nil, err, code
//	fs.abs(path[, base])                           -> absolute path (reads path.quote's form)
//	fs.rel(path, base)                             -> path relative to base, or path
//
// read returns a file's text; lines returns the lines the Read tool shows,
// counted and without terminators. info is stat's table ({size=, mtime=, isDir=,
// isFile=, mode=}), with hash (the SHA-256 of the whole raw content, hex) added by
// read, lines and write, encoding by read and lines, and totalLines, startLine and
// numLines by lines.
//
// Text is UTF-8 for Lua. read and lines decode a file that starts with a byte order
// mark and report its encoding: "utf16le" (FF FE) is converted to UTF-8, "utf8bom"
// (EF BB BF) loses its mark, and any other file is "utf8" and returned byte for
// byte, UTF-16BE (FE FF) included, as the original's tools read it; info.notText
// names the files the standard tools do not write (see notText). The hash is always that of the bytes on disk,
// so that it matches fs.write's ifHash. write's encoding option (default "utf8")
// encodes the text back, with the mark: writing a file in the encoding read keeps it. write is the
// only function that changes anything: see luaWrite; it refuses (code "readonly")
// when the calling tool is read-only for its input.
//
// A path is absolute or relative to the first root. It must lie inside a root:
// anything else, whether by "..", an absolute path elsewhere or a symbolic link
// leading out, fails with code "outside" and the message "path P is outside the
// allowed roots". The one exception: read, lines, stat and exists open the output
// file of a background command (shell.start) of the calling session. Failures a script can handle return nil, a message and a code
// (see the package documentation); wrong arguments raise errors.
//
// Each root must be an existing directory. The module keeps no file open between
// calls (each call opens its root with os.OpenRoot and closes it), so it needs no
// Close. It is safe for use by any number of VMs at once.
func FS(roots []string) (*bindings.Module, error) {
	rs, err := newRootSet(roots)
	if err != nil {
		return nil, err
	}
	return rs.fsModule(), nil
}

func (rs *rootSet) fsModule() *bindings.Module {
	return &bindings.Module{
		Name:  "fs",
		Doc:   "file access confined to the workspace roots; writes only from tools that are not read-only",
		Roots: rs.given(),
		Funcs: map[string]lua.LGFunction{
			"read":   rs.luaRead,
			"write":  rs.luaWrite,
			"lines":  rs.luaLines,
			"stat":   rs.luaStat,
			"lstat":  rs.luaLstat,
			"exists": rs.luaExists,
			"list":   rs.luaList,
			"abs":    rs.luaAbs,
			"rel":    luaRel,
		},
	}
}

// contextOf returns the context bounding the current call.
func contextOf(L *lua.LState) context.Context {
	if ctx := L.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// fileInfo is the info table of stat, read and lines.
func fileInfo(st fs.FileInfo) map[string]any {
	return map[string]any{
		"size":   st.Size(),
		"mtime":  mtimeSeconds(st.ModTime()),
		"isDir":  st.IsDir(),
		"isFile": st.Mode().IsRegular(),
		"mode":   st.Mode().String(),
	}
}

func mtimeSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// pushValue converts a JSON value for Lua and pushes it.
func pushValue(L *lua.LState, v any) {
	lv, err := bindings.VMOf(L).ToLua(v)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(lv)
}

// openRegular opens name for reading and checks that it is a regular file. It opens
// without blocking (openFlags), so that a named pipe with no writer is refused rather
// than waited on past any deadline.
func openRegular(r *os.Root, loc location) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(loc.name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, nil, newOpError(codeIsDir, "%s is a directory", loc.abs)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, newOpError(codeNotFile, "%s is not a regular file", loc.abs)
	}
	return f, st, nil
}

// luaRead is fs.read(path[, {maxBytes=}]): the file's text (decoded to UTF-8, see
// FS), and info with the hash of its raw content, its encoding and notText (as
// fs.lines gives it). A file over
// maxBytes fails with code "toolarge" before anything is read, and so does a text
// that decodes to more than maxBytes.
func (rs *rootSet) luaRead(L *lua.LState) int {
	args := bindings.NewArgs(L, "fs.read")
	p := args.String(1)
	o := args.Options(2, "maxBytes", "record")
	maxBytes := stringLimit(L, o.Int("maxBytes", 0))
	record := o.Bool("record", false)
	ctx := contextOf(L)
	var content []byte
	var info map[string]any
	err := rs.doRead(L, p, func(r *os.Root, loc location) error {
		f, st, err := openRegular(r, loc)
		if err != nil {
			return err
		}
		defer f.Close()
		if st.Size() > int64(maxBytes) {
			return newOpError(codeTooLarge, "%s is %d bytes, over the limit of %d", loc.abs, st.Size(), maxBytes)
		}
		content, err = readAtMost(ctx, f, maxBytes)
		if errors.Is(err, errTooLarge) {
			return newOpError(codeTooLarge, "%s is over the limit of %d bytes", loc.abs, maxBytes)
		}
		if err != nil {
			return err
		}
		info = fileInfo(st)
		info["hash"] = hashHex(content)
		raw := content
		var enc string
		content, enc = decodeText(raw)
		if kind := notText(raw, enc, func() bool { return utf8.Valid(raw) }); kind != "" {
			info["notText"] = kind
		}
		if len(content) > maxBytes {
			return newOpError(codeTooLarge, "the text of %s is over the limit of %d bytes", loc.abs, maxBytes)
		}
		info["encoding"] = enc
		if record {
			show(L, loc.abs, filestate.Entry{Hash: info["hash"].(string), Mtime: mtimeSeconds(st.ModTime())})
		}
		return nil
	})
	if err != nil {
		return push(L, err)
	}
	L.Push(lua.LString(content))
	pushValue(L, info)
	return 2
}

// show records, for the current call, that the model is shown a file: fs.read and
// fs.lines with record = true, in call. The engine keeps it in the session's
// readFileState once the call has succeeded.
func show(L *lua.LState, path string, e filestate.Entry) {
	if c := bindings.CurrentCall(L); c != nil && c.Show != nil {
		c.Show.Show(path, e)
	}
}

// lineRange selects lines start .. start+limit-1 (1-based); limit < 0 means to the end.
type lineRange struct {
	start, limit, maxBytes int
}

func (lr lineRange) has(n int) bool {
	return n >= lr.start && (lr.limit < 0 || n < lr.start+lr.limit)
}

// luaLines is fs.lines(path[, {offset=, limit=, maxBytes=}]): the selected lines of a
// text file joined by "\n", without line terminators ("\r\n" counts as one), and info
// with totalLines, startLine, numLines, encoding, endsWithNewline (the last line has
// a terminator), notText (see notText; absent for text the tools may write) and
// hash (of the whole raw file)
// besides stat's fields. The text is decoded as fs.read decodes it, and lines are
// counted in the decoded text. offset is the first
// line, 1-based (0 counts as 1); limit is the number of lines (default all). The
// file is counted to its end so that totalLines is exact. With maxBytes, a text
// longer than that fails with code "toolarge"; without offset and limit the file's
// size is checked before reading.
func (rs *rootSet) luaLines(L *lua.LState) int {
	args := bindings.NewArgs(L, "fs.lines")
	p := args.String(1)
	o := args.Options(2, "offset", "limit", "maxBytes", "record")
	lr := lineRange{start: o.Int("offset", 1), limit: o.Int("limit", -1), maxBytes: stringLimit(L, o.Int("maxBytes", 0))}
	record := o.Bool("record", false)
	if lr.start < 0 {
		args.Error(2, "option 'offset' must not be negative")
	}
	if o.Int("limit", 1) < 1 {
		args.Error(2, "option 'limit' must be at least 1")
	}
	lr.start = max(lr.start, 1)
	ctx := contextOf(L)
	var text []byte
	var info map[string]any
	err := rs.doRead(L, p, func(r *os.Root, loc location) error {
		f, st, err := openRegular(r, loc)
		if err != nil {
			return err
		}
		defer f.Close()
		whole := lr.start == 1 && lr.limit < 0
		if whole && st.Size() > int64(lr.maxBytes) {
			return newOpError(codeTooLarge, "%s is %d bytes, over the limit of %d", loc.abs, st.Size(), lr.maxBytes)
		}
		var total, selected int
		var endsWithNewline bool
		h := sha256.New()
		head := &headBuffer{max: nulWindow}
		check := &utf8Check{}
		dec, enc, err := decodingReader(io.TeeReader(f, io.MultiWriter(h, head, check)))
		if err != nil {
			return err
		}
		text, total, selected, endsWithNewline, err = readLines(ctx, dec, lr)
		if errors.Is(err, errTooLarge) {
			return newOpError(codeTooLarge, "the selected lines of %s are over the limit of %d bytes", loc.abs, lr.maxBytes)
		}
		if err != nil {
			return err
		}
		info = fileInfo(st)
		info["totalLines"] = total
		info["startLine"] = lr.start
		info["numLines"] = selected
		info["hash"] = hex.EncodeToString(h.Sum(nil))
		info["encoding"] = enc
		info["endsWithNewline"] = endsWithNewline
		if kind := notText(head.b, enc, check.valid); kind != "" {
			info["notText"] = kind
		}
		if record {
			e := filestate.Entry{Hash: info["hash"].(string), Mtime: mtimeSeconds(st.ModTime()),
				Partial: lr.start > 1 || selected < total}
			if o.Int("offset", 0) != 0 {
				e.Offset = lr.start
			}
			if lr.limit >= 0 {
				e.Limit = lr.limit
			}
			show(L, loc.abs, e)
		}
		return nil
	})
	if err != nil {
		return push(L, err)
	}
	L.Push(lua.LString(text))
	pushValue(L, info)
	return 2
}

var errTooLarge = errors.New("over maxBytes")

// nulWindow is how much of a file's start is searched for a NUL byte, the sign of
// binary data or of UTF-16/UTF-32 without a byte order mark: 8000 bytes, as the
// original searches (though its texts say "8 KB").
const nulWindow = 8000

// The kinds of file that fs.read and fs.lines show but that the standard tools do
// not write, as info.notText names them (the original's names).
const (
	notTextUTF16BE = "utf16be"  // UTF-16 big-endian, after the mark FE FF
	notTextNUL     = "nul"      // a NUL byte in the first nulWindow bytes as stored
	notTextInvalid = "not_utf8" // bytes that are not UTF-8: a legacy encoding, or binary
)

// notText names the kind of a file read in encoding enc, whose first bytes as
// stored are head, when it is not text the tools may write, in the original's order
// of checks; "" when it is. valid, called only when it matters, tells whether the
// whole file as stored is UTF-8. UTF-16LE behind its mark is text: its NULs are no
// sign of binary data.
func notText(head []byte, enc string, valid func() bool) string {
	switch {
	case enc == encUTF16LE:
		return ""
	case bytes.HasPrefix(head, bomUTF16BE):
		return notTextUTF16BE
	case bytes.IndexByte(head[:min(len(head), nulWindow)], 0) >= 0:
		return notTextNUL
	case !valid():
		return notTextInvalid
	}
	return ""
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	b   []byte
	max int
}

// Write implements io.Writer; it never fails.
func (w *headBuffer) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// stringLimit is the most a read may return: the maxBytes asked for, but never more
// than the state's string limit (a file's content becomes one Lua string).
func stringLimit(L *lua.LState, maxBytes int) int {
	limit := bindings.VMOf(L).Limits().MaxStringBytes
	if maxBytes <= 0 || maxBytes > limit {
		return limit
	}
	return maxBytes
}

// readAtMost reads r to its end in chunks, watching ctx, and fails with errTooLarge
// past max bytes (a file may grow after it was measured).
func readAtMost(ctx context.Context, r io.Reader, max int) ([]byte, error) {
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, newOpError(codeCancelled, "read cancelled: %v", err)
		}
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if len(buf) > max {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLines reads r to its end, keeping the lines lr selects. A last line without a
// terminator counts; the empty string after a final "\n" does not, as with wc -l and
// cat -n: endsWithNewline tells whether there is one, for a caller that counts it.
func readLines(ctx context.Context, r io.Reader, lr lineRange) (text []byte, total, selected int, endsWithNewline bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	n := 1           // the line being read
	open := false    // part of line n has been read
	started := false // line n is selected and has been started in text
	for i := 0; ; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, 0, false, newOpError(codeCancelled, "read cancelled: %v", err)
			}
		}
		chunk, rerr := br.ReadSlice('\n')
		if len(chunk) > 0 {
			open = true
			body, ends := chunk, chunk[len(chunk)-1] == '\n'
			if ends {
				body = body[:len(body)-1]
			}
			if lr.has(n) {
				if !started {
					if selected > 0 {
						text = append(text, '\n')
					}
					started = true
					selected++
				}
				text = append(text, body...)
				if lr.maxBytes > 0 && len(text) > lr.maxBytes {
					return nil, 0, 0, false, errTooLarge
				}
			}
			if ends {
				if started && len(text) > 0 && text[len(text)-1] == '\r' {
					text = text[:len(text)-1]
				}
				n++
				total++
				open, started = false, false
			}
		}
		switch {
		case rerr == nil, errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF):
			if open {
				total++
				if started && len(text) > 0 && text[len(text)-1] == '\r' {
					text = text[:len(text)-1]
				}
			}
			return text, total, selected, total > 0 && !open, nil
		default:
			return nil, 0, 0, false, rerr
		}
	}
}

// luaStat is fs.stat(path): {size=, mtime=, isDir=, isFile=, mode=}, following
// symbolic links that stay inside the roots. mtime is in seconds (with fraction).
func (rs *rootSet) luaStat(L *lua.LState) int {
	return rs.pushInfo(L, "fs.stat", func(r *os.Root, loc location) (map[string]any, error) {
		st, err := r.Stat(loc.name)
		if err != nil {
			return nil, err
		}
		return fileInfo(st), nil
	})
}

// luaLstat is fs.lstat(path): stat's info of path itself, not following a symbolic
// link it names, with isLink; for a link, target is where it points, absolute and
// clean (a relative target taken from the link's directory), whether or not
// anything is there. Only the last element of path is not followed.
func (rs *rootSet) luaLstat(L *lua.LState) int {
	return rs.pushInfo(L, "fs.lstat", func(r *os.Root, loc location) (map[string]any, error) {
		st, err := r.Lstat(loc.name)
		if err != nil {
			return nil, err
		}
		info := fileInfo(st)
		info["isLink"] = st.Mode()&fs.ModeSymlink != 0
		if st.Mode()&fs.ModeSymlink == 0 {
			return info, nil
		}
		target, err := r.Readlink(loc.name)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(loc.abs), target)
		}
		info["target"] = filepath.Clean(target)
		return info, nil
	})
}

// pushInfo is the body of fs.stat and fs.lstat (named fn): it checks the path
// argument, builds the info table of the path with info, inside the roots, and
// pushes it, or nil, the message and the code.
func (rs *rootSet) pushInfo(L *lua.LState, fn string, info func(r *os.Root, loc location) (map[string]any, error)) int {
	p := bindings.NewArgs(L, fn).String(1)
	var out map[string]any
	err := rs.doRead(L, p, func(r *os.Root, loc location) error {
		var err error
		out, err = info(r, loc)
		return err
	})
	if err != nil {
		return push(L, err)
	}
	pushValue(L, out)
	return 1
}

// luaExists is fs.exists(path): true when path names something inside the roots;
// otherwise false and the reason.
func (rs *rootSet) luaExists(L *lua.LState) int {
	p := bindings.NewArgs(L, "fs.exists").String(1)
	err := rs.doRead(L, p, func(r *os.Root, loc location) error {
		_, err := r.Stat(loc.name)
		return err
	})
	if err != nil {
		L.Push(lua.LFalse)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

// luaList is fs.list(dir): the names of the directory's entries, sorted, as an
// array, without the temporary files of atomic writes (isTempName) and what a Read
// deny rule hides.
func (rs *rootSet) luaList(L *lua.LState) int {
	p := bindings.NewArgs(L, "fs.list").String(1)
	hidden := hiddenFunc(L)
	var names []any
	err := rs.do(p, func(r *os.Root, loc location) error {
		st, err := r.Stat(loc.name)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return newOpError(codeNotDir, "%s is not a directory", loc.abs)
		}
		entries, err := fs.ReadDir(r.FS(), loc.name)
		if err != nil {
			return err
		}
		names = make([]any, 0, len(entries))
		for _, e := range entries {
			if isTempName(e.Name()) || hidden != nil && hidden(filepath.Join(loc.abs, e.Name())) {
				continue
			}
			names = append(names, e.Name())
		}
		return nil
	})
	if err != nil {
		return push(L, err)
	}
	pushValue(L, names)
	return 1
}

// luaAbs is fs.abs(path[, base]): path made absolute and clean, "~" expanded, a
// relative path taken relative to base (itself absolute or relative to the first
// root), by default the first root. A path in the quoted form Glob and Grep show
// names in (path.quote) is read as the name it stands for, so that a model can pass
// a name back as it was shown. It does not check the roots.
func (rs *rootSet) luaAbs(L *lua.LState) int {
	args := bindings.NewArgs(L, "fs.abs")
	p := unquoteName(args.String(1))
	base := args.OptString(2, "")
	L.Push(lua.LString(rs.abs(p, base)))
	return 1
}

// luaRel is fs.rel(path, base): path relative to base when it lies inside base (as
// "." for base itself), otherwise path unchanged. Both must be absolute. This is how
// tools show paths to the model: short inside the working directory, absolute
// elsewhere.
func luaRel(L *lua.LState) int {
	args := bindings.NewArgs(L, "fs.rel")
	p, base := args.String(1), args.String(2)
	if !filepath.IsAbs(p) {
		args.Error(1, "absolute path expected, got "+p)
	}
	if !filepath.IsAbs(base) {
		args.Error(2, "absolute path expected, got "+base)
	}
	rel, ok := within(filepath.Clean(base), filepath.Clean(p))
	if !ok {
		rel = filepath.Clean(p)
	}
	L.Push(lua.LString(filepath.FromSlash(rel)))
	return 1
}
