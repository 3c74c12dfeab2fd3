package repo

import (
	"os"

	"golang.org/x/sys/windows"
)

// fileOwner: Windows files have an owner SID, not a user id; the
// --root owner check does not apply there (git's own safe.directory
// check, which compares SIDs, still does).
func fileOwner(os.FileInfo) (int, bool) { return 0, false }

// fileDevice: Windows' os.FileInfo does not say which volume a file is
// on; the walk up to a repository is not stopped at one.
func fileDevice(os.FileInfo) (uint64, bool) { return 0, false }

// linkCount is the number of names the file at path has, from its
// handle (Windows' os.FileInfo does not say); 1 if it cannot be opened
// (the read that follows then fails on its own).
func linkCount(path string, fi os.FileInfo) uint64 {
	if !fi.Mode().IsRegular() {
		return 1
	}
	f, err := os.Open(path) //nolint:gosec // G304: a work-tree path resolved by the caller
	if err != nil {
		return 1
	}
	defer f.Close()
	var info windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info) != nil {
		return 1
	}
	return uint64(info.NumberOfLinks)
}
