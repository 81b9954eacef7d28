package taints

import "strconv"

// String renders the taint as kubectl does: "key=value:Effect", or
// "key:Effect" when the value is empty.
func (t Taint) String() string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// String renders the toleration in the style of kubectl describe:
// "key[=value][:Effect][ op=Operator][ for Ns]". The operator is shown
// unless it is "" or Equal; an empty key with Exists and no effect, which
// tolerates everything, renders as "op=Exists".
func (t Toleration) String() string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	if t.Operator != "" && t.Operator != Equal {
		if s != "" {
			s += " "
		}
		s += "op=" + string(t.Operator)
	}
	if t.TolerationSeconds != nil {
		s += " for " + strconv.FormatInt(*t.TolerationSeconds, 10) + "s"
	}
	return s
}
