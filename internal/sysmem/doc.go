// Package sysmem says how much memory the machine (or the cgroup the server
// runs in) has: the default of the git processes' memory budget
// (gitexec.Env.ShareMemory).
package sysmem
