package client

import "slices"

// A Level is the severity of a log message, as RFC 5424 names them and MCP spells
// them, from debug (least) to emergency (most).
type Level string

// The levels, least severe first.
const (
	Debug     Level = "debug"
	Info      Level = "info"
	Notice    Level = "notice"
	Warning   Level = "warning"
	Error     Level = "error"
	Critical  Level = "critical"
	Alert     Level = "alert"
	Emergency Level = "emergency"
)

// Levels are the levels, least severe first.
var Levels = []Level{Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency}

// ParseLevel returns the level named s, or false when s names none.
func ParseLevel(s string) (Level, bool) {
	l := Level(s)
	return l, slices.Contains(Levels, l)
}

// AtLeast reports whether l is as severe as min or more. An unknown level is
// below every known one.
func (l Level) AtLeast(min Level) bool {
	return slices.Index(Levels, l) >= slices.Index(Levels, min)
}

// A LogMessage is one notifications/message: its level, the logger that sent it
// (the tool's name) and its data, any JSON value.
type LogMessage struct {
	Level  Level
	Logger string
	Data   any
}
