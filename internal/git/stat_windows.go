package git

import "os"

// statOf: Windows' os.FileInfo has no inode, owner or change time, so
// nothing is known beyond it: callers take the file as unknown (changed).
func statOf(os.FileInfo) (statInfo, bool) { return statInfo{}, false }
