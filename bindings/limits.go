package bindings

import "time"

// Limits bound what one VM may do. The zero value of each field means its default.
type Limits struct {
	// MaxSourceBytes is the largest source file Compile accepts. Default 1 MiB.
	MaxSourceBytes int
	// MaxDepth is the deepest nesting of tables the value converters accept. Default 128.
	MaxDepth int
	// MaxLogBytes caps what print and ctx:log keep per call; the rest is dropped with a
	// marker. Default 64 KiB.
	MaxLogBytes int
	// InitTimeout bounds running a program's main chunk on a new state. Default 5 s.
	InitTimeout time.Duration
	// MaxIdleStates is how many idle states a Pool keeps. Default 8.
	MaxIdleStates int
}

// Default limits.
const (
	DefaultMaxSourceBytes = 1 << 20
	DefaultMaxDepth       = 128
	DefaultMaxLogBytes    = 64 << 10
	DefaultInitTimeout    = 5 * time.Second
	DefaultMaxIdleStates  = 8
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxSourceBytes <= 0 {
		l.MaxSourceBytes = DefaultMaxSourceBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxLogBytes <= 0 {
		l.MaxLogBytes = DefaultMaxLogBytes
	}
	if l.InitTimeout <= 0 {
		l.InitTimeout = DefaultInitTimeout
	}
	if l.MaxIdleStates <= 0 {
		l.MaxIdleStates = DefaultMaxIdleStates
	}
	return l
}
