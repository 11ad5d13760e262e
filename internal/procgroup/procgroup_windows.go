//go:build windows

package procgroup

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A Group is the processes of one command: a job object holding the command and,
// as Windows puts them in their parent's job, everything it starts. Its methods
// are safe across goroutines.
type Group struct {
	pid uint32
	job windows.Handle
}

// killedCode is the exit status Kill and Stop give every process of the group:
// 128+9, what a shell reports for a command SIGKILL ended on Unix.
const killedCode = 137

// Start starts cmd with start (cmd.Start) suspended, puts it in a new job object,
// and only then lets it run, so that nothing it starts can be outside the job. The
// job is made to end its processes when its last handle closes: Close, or the end
// of this program however it ends, so the group never outlives the program. When
// the command cannot be put in the job it is killed and reaped, and Start returns
// why: a command is not left running where it could not be ended whole.
func Start(cmd *exec.Cmd, start func(*exec.Cmd) error) (*Group, error) {
	job, err := newJob()
	if err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := start(cmd); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	g := &Group{pid: uint32(cmd.Process.Pid), job: job}
	if err := g.admit(); err != nil {
		_ = cmd.Process.Kill() // it never ran: suspended, it started nothing
		_ = cmd.Wait()
		windows.CloseHandle(job)
		return nil, fmt.Errorf("procgroup: %w", err)
	}
	return g, nil
}

// newJob makes a job object whose processes end when its last handle closes.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("procgroup: a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("procgroup: a job object: %w", err)
	}
	return job, nil
}

// admit puts the suspended process in the job, then resumes its threads (a process
// created suspended has one, its main thread, whose handle os/exec does not keep).
func (g *Group) admit() error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, g.pid)
	if err != nil {
		return err
	}
	err = windows.AssignProcessToJobObject(g.job, p)
	windows.CloseHandle(p)
	if err != nil {
		return err
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != g.pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return err
	}
	if resumed == 0 {
		return errors.New("the command's main thread was not found to resume")
	}
	return nil
}

// ID is the group's number: the command's process id.
func (g *Group) ID() int { return int(g.pid) }

// Kill ends every process of the job at once (TerminateJobObject).
func (g *Group) Kill() { _ = windows.TerminateJobObject(g.job, killedCode) }

// Stop ends every process of the job as Kill does: Windows has no signal that asks
// a process tree outside a console to end.
func (g *Group) Stop() { g.Kill() }

// Close closes the job, which ends whatever of it still runs. Call it once, after
// the last Kill or Stop.
func (g *Group) Close() { windows.CloseHandle(g.job) }
