package session

import (
	"bytes"
	"container/list"
	"context"
	"sync"
)

// DefaultMaxSessions is how many sessions NewMemory keeps when not told.
const DefaultMaxSessions = 10000

// memory is the Store of NewMemory.
type memory struct {
	mu          sync.Mutex
	maxSessions int
	count       int
	// principals are each principal's sessions (of *memSession), most recently
	// used first.
	principals map[string]*list.List
	sessions   map[string]*list.Element
	clock      uint64 // counts uses, for memSession.used
}

// memSession is one session: its buckets by name.
type memSession struct {
	key, principal string
	used           uint64 // the clock at its last use
	buckets        map[string]*memBucket
}

// memBucket is one bucket: its keys, most recently used first.
type memBucket struct {
	order *list.List // of *memItem
	items map[string]*list.Element
}

type memItem struct {
	key   string
	value []byte
}

// NewMemory returns a Store in this process's memory, keeping at most maxSessions
// sessions (zero means DefaultMaxSessions). Past them, the least recently used
// session of the principal holding the most is forgotten first, so that a principal
// opening session after session (over HTTP with sessions, one per client) forgets
// its own, never another principal's.
func NewMemory(maxSessions int) Store {
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	return &memory{maxSessions: maxSessions, principals: map[string]*list.List{}, sessions: map[string]*list.Element{}}
}

// session returns session s, marked recently used; made if create is set, else nil
// when there is none.
func (m *memory) session(s string, create bool) *memSession {
	m.clock++
	if el, ok := m.sessions[s]; ok {
		ms := el.Value.(*memSession)
		m.principals[ms.principal].MoveToFront(el)
		ms.used = m.clock
		return ms
	}
	if !create {
		return nil
	}
	ms := &memSession{key: s, principal: principalOfKey(s), used: m.clock, buckets: map[string]*memBucket{}}
	own := m.principals[ms.principal]
	if own == nil {
		own = list.New()
		m.principals[ms.principal] = own
	}
	m.sessions[s] = own.PushFront(ms)
	for m.count++; m.count > m.maxSessions; m.count-- {
		m.forgetOne()
	}
	return ms
}

// forgetOne forgets the least recently used session of the principal holding the
// most sessions (of those holding as many, the one whose oldest is oldest).
func (m *memory) forgetOne() {
	var victim *list.List
	var name string
	for p, own := range m.principals {
		if victim == nil || own.Len() > victim.Len() ||
			own.Len() == victim.Len() && own.Back().Value.(*memSession).used < victim.Back().Value.(*memSession).used {
			victim, name = own, p
		}
	}
	last := victim.Back()
	victim.Remove(last)
	delete(m.sessions, last.Value.(*memSession).key)
	if victim.Len() == 0 {
		delete(m.principals, name)
	}
}

func (m *memory) Get(_ context.Context, s string, b Bucket, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.session(s, false)
	if ms == nil || ms.buckets[b.Name] == nil {
		return nil, nil
	}
	mb := ms.buckets[b.Name]
	el, ok := mb.items[key]
	if !ok {
		return nil, nil
	}
	mb.order.MoveToFront(el)
	return bytes.Clone(el.Value.(*memItem).value), nil
}

func (m *memory) Put(_ context.Context, s string, b Bucket, key string, value []byte) error {
	if len(value) > MaxValueBytes {
		return ErrTooLarge
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(s, b, key, value)
	return nil
}

func (m *memory) CompareAndPut(_ context.Context, s string, b Bucket, key string, old, value []byte) (bool, error) {
	if len(value) > MaxValueBytes {
		return false, ErrTooLarge
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now, ok := m.value(s, b, key)
	if ok != (old != nil) || !bytes.Equal(now, old) {
		return false, nil
	}
	m.put(s, b, key, value)
	return true, nil
}

// value returns the value of key in bucket b of session s and whether there is one,
// without marking anything used; m.mu is held.
func (m *memory) value(s string, b Bucket, key string) ([]byte, bool) {
	el, ok := m.sessions[s]
	if !ok {
		return nil, false
	}
	mb := el.Value.(*memSession).buckets[b.Name]
	if mb == nil {
		return nil, false
	}
	item, ok := mb.items[key]
	if !ok {
		return nil, false
	}
	return item.Value.(*memItem).value, true
}

// put sets (or, with a nil value, deletes) key in bucket b of session s; m.mu is
// held.
func (m *memory) put(s string, b Bucket, key string, value []byte) {
	ms := m.session(s, value != nil)
	if ms == nil {
		return
	}
	mb := ms.buckets[b.Name]
	if mb == nil {
		if value == nil {
			return
		}
		mb = &memBucket{order: list.New(), items: map[string]*list.Element{}}
		ms.buckets[b.Name] = mb
	}
	if el, ok := mb.items[key]; ok {
		mb.order.Remove(el)
		delete(mb.items, key)
	}
	if value == nil {
		return
	}
	mb.items[key] = mb.order.PushFront(&memItem{key: key, value: bytes.Clone(value)})
	for mb.order.Len() > max(b.MaxKeys, 1) {
		last := mb.order.Back()
		mb.order.Remove(last)
		delete(mb.items, last.Value.(*memItem).key)
	}
}

func (m *memory) List(_ context.Context, s string, b Bucket) (map[string][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.session(s, false)
	if ms == nil || ms.buckets[b.Name] == nil {
		return nil, nil
	}
	out := make(map[string][]byte, len(ms.buckets[b.Name].items))
	for key, el := range ms.buckets[b.Name].items {
		out[key] = bytes.Clone(el.Value.(*memItem).value)
	}
	return out, nil
}
