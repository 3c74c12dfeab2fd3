// Package notes lets code deep in a call leave a short remark for the reply
// (such as "served from a stale mirror") without threading it through every
// return value.
package notes

import (
	"context"
	"sync"
)

type key struct{}

// List collects the notes of one call.
type List struct {
	mu    sync.Mutex
	notes []string
}

// With returns a context that collects notes into the returned list.
func With(ctx context.Context) (context.Context, *List) {
	l := &List{}
	return context.WithValue(ctx, key{}, l), l
}

// Add leaves a note, once, if the context collects them.
func Add(ctx context.Context, note string) {
	l, ok := ctx.Value(key{}).(*List)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.notes {
		if n == note {
			return
		}
	}
	l.notes = append(l.notes, note)
}

// All returns the notes left so far.
func (l *List) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.notes...)
}
