package taints

// DeepCopy returns t with its own copy of TolerationSeconds.
func (t Toleration) DeepCopy() Toleration {
	if t.TolerationSeconds != nil {
		v := *t.TolerationSeconds
		t.TolerationSeconds = &v
	}
	return t
}

// CloneTolerations returns a deep copy of tols; nil gives nil and empty
// gives empty.
func CloneTolerations(tols []Toleration) []Toleration {
	if tols == nil {
		return nil
	}
	out := make([]Toleration, len(tols))
	for i, t := range tols {
		out[i] = t.DeepCopy()
	}
	return out
}
