package git

import (
	"os"
	"syscall"
)

// statOf is what the system's stat says of fi beyond os.FileInfo, as git's
// index records it; false where the system does not say it.
func statOf(fi os.FileInfo) (statInfo, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statInfo{}, false
	}
	return statInfo{
		dev: uint64(st.Dev), ino: st.Ino, uid: st.Uid, gid: st.Gid,
		mtime: [2]int64{st.Mtim.Sec, st.Mtim.Nsec}, ctime: [2]int64{st.Ctim.Sec, st.Ctim.Nsec},
	}, true
}
