package paging

// FitList renders the largest prefix of n items whose reply fits the
// limit: a list's page, cut to one reply.
func FitList[R Wirer](b Budget, n int, render func(n int) R) R {
	r, _ := fitList(b, n, render)
	return r
}

// fitList is FitList, and how many items the reply holds.
func fitList[R Wirer](b Budget, n int, render func(n int) R) (R, int) {
	r := render(n)
	if b.Fits(r) {
		return r, n
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
	return render(lo), lo
}

// FitListCut is FitList for a list whose next call goes on after what it
// shows: when not even its first item fits (a name of 12,000 "<", which
// JSON escapes sixfold), cut(keep) renders that item alone with its name
// cut to keep of its size bytes, and saying so, for the most keep that
// fits; so a drain never repeats a call, and the items after it are read.
func FitListCut[R Wirer](b Budget, n int, render func(n int) R, size int, cut func(keep int) R) R {
	r, shown := fitList(b, n, render)
	if shown > 0 || n == 0 {
		return r
	}
	lo, hi := 0, size // cut(lo) is taken to fit, cut(hi) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if b.Fits(cut(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return cut(lo)
}
