package git

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// localFS are the filesystems whose stat shows a changed file at once. On
// NFS, SMB or FUSE, stat may answer from an attribute cache (seconds, up
// to a minute) while git's open() revalidates and reads the new file.
var localFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC: true, unix.XFS_SUPER_MAGIC: true, unix.BTRFS_SUPER_MAGIC: true,
	unix.TMPFS_MAGIC: true, unix.RAMFS_MAGIC: true, unix.OVERLAYFS_SUPER_MAGIC: true,
	unix.F2FS_SUPER_MAGIC: true, unix.BCACHEFS_SUPER_MAGIC: true, 0x2fc12fc1: true, // ZFS
}

// localFileSystem reports whether path is on one of localFS.
func localFileSystem(path string) bool {
	var fs unix.Statfs_t
	return unix.Statfs(path, &fs) == nil && localFS[fs.Type]
}

func statID(path string, follow bool) (fileID, error) {
	var st syscall.Stat_t
	var err error
	if follow {
		err = syscall.Stat(path, &st)
	} else {
		err = syscall.Lstat(path, &st)
	}
	switch {
	case errors.Is(err, syscall.ENOENT):
		return fileID{}, nil
	case errors.Is(err, syscall.ENOTDIR): // git looks in packed-refs only on ENOENT
		return fileID{mode: notDir}, nil
	case err != nil:
		return fileID{}, errUncacheable
	}
	mode := st.Mode & syscall.S_IFMT
	switch {
	case follow:
		return fileID{mode: mode, dev: st.Dev, ino: st.Ino}, nil
	case mode == syscall.S_IFDIR:
		return fileID{mode: mode}, nil
	case mode != syscall.S_IFREG:
		return fileID{}, errUncacheable
	}
	return fileID{mode: mode, dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, nil
}
