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
	order       *list.List // of *memSession, most recently used first
	sessions    map[string]*list.Element
}

// memSession is one session: its buckets by name.
type memSession struct {
	key     string
	buckets map[string]*memBucket
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
// sessions (the least recently used is forgotten first; zero means
// DefaultMaxSessions).
func NewMemory(maxSessions int) Store {
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	return &memory{maxSessions: maxSessions, order: list.New(), sessions: map[string]*list.Element{}}
}

// session returns session s, marked recently used; made if create is set, else nil
// when there is none.
func (m *memory) session(s string, create bool) *memSession {
	if el, ok := m.sessions[s]; ok {
		m.order.MoveToFront(el)
		return el.Value.(*memSession)
	}
	if !create {
		return nil
	}
	ms := &memSession{key: s, buckets: map[string]*memBucket{}}
	m.sessions[s] = m.order.PushFront(ms)
	for m.order.Len() > m.maxSessions {
		last := m.order.Back()
		m.order.Remove(last)
		delete(m.sessions, last.Value.(*memSession).key)
	}
	return ms
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
