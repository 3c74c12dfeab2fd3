package git

// statInfo is what a Unix stat says of a file beyond os.FileInfo (statOf,
// per system).
type statInfo struct {
	dev, ino     uint64
	uid, gid     uint32
	mtime, ctime [2]int64 // seconds, nanoseconds
}
