//go:build unix

package git

// idlePids lists the process ids of the pool's idle readers.
func idlePids(r *Repo) []int {
	p := r.objects
	p.mu.Lock()
	defer p.mu.Unlock()
	var pids []int
	for _, c := range p.idle {
		pids = append(pids, c.proc.Pid())
	}
	return pids
}
