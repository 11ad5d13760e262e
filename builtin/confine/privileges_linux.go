package confine

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// The securebits the launcher sets and locks (linux/securebits.h; x/sys/unix does
// not name them): uid 0 gains no capability by executing a program (noroot), nothing
// may raise an ambient capability, keep-caps stays off and the setuid fixup, which
// only takes capabilities away, stays on. Locked, the command cannot change them.
const (
	secbitNoroot                  = 1 << 0
	secbitNorootLocked            = 1 << 1
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7

	launcherSecurebits = secbitNoroot | secbitNorootLocked | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
)

// maxCapabilities bounds the probe of the capabilities the kernel knows: their
// numbers fit the 64 bits of a capability set.
const maxCapabilities = 64

// dropCapabilities takes every capability from the calling thread, which then
// executes the command, so that a command started by root is no stronger than one
// started by any other user: it empties the bounding set (no program executed later
// can gain one from its file capabilities or setuid bit; no_new_privs stops that
// too), the ambient, inheritable, permitted and effective sets, and sets and locks
// the securebits above. The bounding set and the securebits need CAP_SETPCAP: a
// thread that is not permitted it (one not started by root) has no capability to
// take from a later program, and keeps them as they are. Then it reads everything
// back, and any capability left is an error: the command must not run.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	last, err := lastCapability()
	if err != nil {
		return err
	}
	setpcap := data[0].Permitted&(1<<unix.CAP_SETPCAP) != 0
	if setpcap {
		data[0].Effective |= 1 << unix.CAP_SETPCAP
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return fmt.Errorf("capset (raising CAP_SETPCAP): %w", err)
		}
		bits, err := unix.PrctlRetInt(unix.PR_GET_SECUREBITS, 0, 0, 0, 0)
		if err != nil {
			return fmt.Errorf("prctl(PR_GET_SECUREBITS): %w", err)
		}
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits|launcherSecurebits), 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
		}
		for c := 0; c <= last; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset (emptying the sets): %w", err)
	}
	return checkDropped(last, setpcap)
}

// lastCapability is the highest capability the kernel knows, found as the highest
// the bounding set can be asked about (this needs neither /proc nor privilege).
func lastCapability() (int, error) {
	for c := 0; c < maxCapabilities; c++ {
		_, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			if c == 0 {
				break
			}
			return c - 1, nil
		}
		if err != nil {
			return 0, fmt.Errorf("prctl(PR_CAPBSET_READ, %d): %w", c, err)
		}
	}
	return 0, errors.New("prctl(PR_CAPBSET_READ) does not say which capabilities the kernel knows")
}

// checkDropped reports an error naming what is left of the capabilities of the
// calling thread: any in its effective, permitted, inheritable or ambient sets, and
// when dropped (the thread had CAP_SETPCAP) any in its bounding set, or securebits
// not set.
func checkDropped(last int, dropped bool) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for _, d := range data {
		if d.Effective|d.Permitted|d.Inheritable != 0 {
			return fmt.Errorf("capabilities left after capset: effective %#x, permitted %#x, inheritable %#x", d.Effective, d.Permitted, d.Inheritable)
		}
	}
	for c := 0; c <= last; c++ {
		if set, err := unix.PrctlRetInt(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET, uintptr(c), 0, 0); err != nil || set != 0 {
			return fmt.Errorf("ambient capability %d is left (%v)", c, err)
		}
		if !dropped {
			continue
		}
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err != nil || in != 0 {
			return fmt.Errorf("capability %d is left in the bounding set (%v)", c, err)
		}
	}
	if dropped {
		bits, err := unix.PrctlRetInt(unix.PR_GET_SECUREBITS, 0, 0, 0, 0)
		if err != nil || bits&launcherSecurebits != launcherSecurebits {
			return fmt.Errorf("securebits %#x do not hold %#x (%v)", bits, launcherSecurebits, err)
		}
	}
	return nil
}
