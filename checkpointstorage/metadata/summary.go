package metadata

// StateNames returns the names of the operator's operator state (managed and
// raw, of every subtask), each once, in the order they first appear.
func (op *Operator) StateNames() []string {
	names := []string{}
	seen := map[string]bool{}
	for i := range op.Subtasks {
		s := op.Subtasks[i].State
		if s == nil {
			continue
		}
		for _, h := range []Handle{s.ManagedOperatorState, s.RawOperatorState} {
			var states []NamedState
			switch h := h.(type) {
			case *OperatorStreamStateHandle:
				states = h.States
			case *FileMergingOperatorStreamStateHandle:
				states = h.States
			}
			for _, st := range states {
				if !seen[st.Name] {
					seen[st.Name] = true
					names = append(names, st.Name)
				}
			}
		}
	}
	return names
}

// KeyedSubtasks returns how many of the operator's subtasks have keyed state
// (managed or raw).
func (op *Operator) KeyedSubtasks() int {
	n := 0
	for i := range op.Subtasks {
		if s := op.Subtasks[i].State; s != nil && (!isNil(s.ManagedKeyedState) || !isNil(s.RawKeyedState)) {
			n++
		}
	}
	return n
}

// SubtaskStates returns the number of subtask states the operator records,
// finished ones included.
func (op *Operator) SubtaskStates() int { return len(op.Subtasks) + len(op.FinishedSubtasks) }

// HandleCounts returns how many handles of each kind (KindName) the metadata
// holds, nested ones included.
func (m *Metadata) HandleCounts() map[string]int {
	c := map[string]int{}
	m.Walk(func(_ *Operator, _ *Subtask, h Handle) { c[KindName(h)]++ })
	return c
}
