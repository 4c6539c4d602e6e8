package judge

// Waits returns how many requests waited for an identical one in flight.
func Waits(m *Memoized) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.waits
}
