package bindings

import "time"

// Limits bound what one VM may do. The zero value of each field means its default;
// luatool describe and the README list them.
type Limits struct {
	// MaxSourceBytes is the largest source file Compile accepts. Default 1 MiB.
	MaxSourceBytes int
	// MaxNesting is the deepest nesting of blocks, brackets and expressions Compile
	// accepts: gopher-lua's compiler takes time and memory that grow fast with it.
	// Default 200, Lua's own limit for nested calls in its parser.
	MaxNesting int
	// MaxDepth is the deepest nesting of tables the value converters accept. Default 128.
	MaxDepth int
	// MaxLogBytes caps what print and ctx:log keep per call; the rest is dropped with a
	// marker. Default 64 KiB.
	MaxLogBytes int
	// MaxStringBytes caps a string built in one step by a library function
	// (string.rep, string.format, table.concat, string.gsub) and the subject of a
	// pattern match. Default 16 MiB.
	MaxStringBytes int
	// MaxUnpack caps how many values unpack may return. Default 10,000.
	MaxUnpack int
	// MaxCoroutines caps the coroutines one call may create. Default 1,000.
	MaxCoroutines int
	// MaxPatternSteps caps the work of one pattern match (string.find, match, one
	// gmatch step, gsub): a backtracking pattern stops with an error instead of running
	// for hours. Default 200 million, about a second of matching and room for twelve
	// steps a byte over a subject of MaxStringBytes (ordinary patterns take one to nine).
	MaxPatternSteps int64
	// MemoryBudget is the heap size in bytes past which running calls are stopped
	// with ErrMemoryLimit (see Watchdog). The heap is the whole process's. A call is
	// stopped once a collection has found the heap live over the budget, so the heap
	// of a script allocating fast goes past it meanwhile: up to 1.37 times the budget
	// on two cores (BenchmarkBombs; the README's Limits has the figures). Default
	// 1 GiB; negative turns the watchdog off.
	MemoryBudget int64
	// InitTimeout bounds running a program's main chunk on a new state (a tool
	// file's load). Default 5 s.
	InitTimeout time.Duration
	// MaxIdleStates is how many idle states a Pool keeps. Default 8.
	MaxIdleStates int
	// FreshStates makes a Pool build a new state for every use and close it after:
	// slower, for hosts that want no state, not even a tool file's locals, to outlive
	// a call.
	FreshStates bool
}

// Default limits.
const (
	DefaultMaxSourceBytes  = 1 << 20
	DefaultMaxNesting      = 200
	DefaultMaxDepth        = 128
	DefaultMaxLogBytes     = 64 << 10
	DefaultMaxStringBytes  = 16 << 20
	DefaultMaxUnpack       = 10000
	DefaultMaxCoroutines   = 1000
	DefaultMaxPatternSteps = 200_000_000
	DefaultMemoryBudget    = 1 << 30
	DefaultInitTimeout     = 5 * time.Second
	DefaultMaxIdleStates   = 8
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxSourceBytes, DefaultMaxSourceBytes)
	def(&l.MaxNesting, DefaultMaxNesting)
	def(&l.MaxDepth, DefaultMaxDepth)
	def(&l.MaxLogBytes, DefaultMaxLogBytes)
	def(&l.MaxStringBytes, DefaultMaxStringBytes)
	def(&l.MaxUnpack, DefaultMaxUnpack)
	def(&l.MaxCoroutines, DefaultMaxCoroutines)
	def(&l.MaxIdleStates, DefaultMaxIdleStates)
	if l.MaxPatternSteps <= 0 {
		l.MaxPatternSteps = DefaultMaxPatternSteps
	}
	if l.MemoryBudget == 0 {
		l.MemoryBudget = DefaultMemoryBudget
	}
	if l.InitTimeout <= 0 {
		l.InitTimeout = DefaultInitTimeout
	}
	return l
}
