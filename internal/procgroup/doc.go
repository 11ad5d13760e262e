// Package procgroup starts a command together with everything it starts in one
// group that can be ended whole: a process group on Unix, a job object on Windows.
// A command's children must end with it (a shell run that timed out, a background
// command stopped, a hook), and a child left holding the command's output pipe
// open must not keep its reader waiting.
//
// A process that leaves its group escapes it: on Unix one that calls setsid or
// setpgid, on Windows one started with CREATE_BREAKAWAY_FROM_JOB from a job that
// allows it (Start's jobs do not).
package procgroup
