package paging

// FitList renders the largest prefix of n items whose reply fits the
// limit: a list's page, cut to one reply.
func FitList[R Wirer](b Budget, n int, render func(n int) R) R {
	r := render(n)
	if b.Fits(r) {
		return r
	}
	lo, hi := 0, n // render(lo) fits, render(hi) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if b.Fits(render(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return render(lo)
}
