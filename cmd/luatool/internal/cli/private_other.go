//go:build !unix

package cli

import (
	"errors"
	"net"
)

// listenUnix refuses: without Unix file modes, a socket cannot be made private.
func listenUnix(path string) (net.Listener, error) {
	return nil, errors.New("--http unix:" + path + ": unix sockets are served on Unix systems only, where their mode keeps other users out")
}

// makePrivateDir does nothing: the user's directories are private by their access
// lists.
func makePrivateDir(string) error { return nil }
