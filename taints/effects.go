package taints

import "github.com/daemonplan/daemonplan/api"

// Effects is a set of the three taint effects, used to say which taints a
// check looks at ("NoSchedule or NoExecute"). The zero value selects nothing.
// Effects other than NoSchedule, PreferNoSchedule and NoExecute have no bit:
// a set never contains them.
type Effects uint8

const (
	bitNoSchedule       uint8 = 1 << iota // NoSchedule
	bitPreferNoSchedule                   // PreferNoSchedule
	bitNoExecute                          // NoExecute
	bitOther                              // any other effect string, "" included; never in an Effects

	knownBits = bitNoSchedule | bitPreferNoSchedule | bitNoExecute
)

// The effect selections the DaemonSet controller uses. They are constants
// equal to the [EffectsOf] calls in their comments, so that no caller can
// change them.
const (
	// ScheduleBlocking selects the taints that keep a daemon pod from being
	// placed on a node (shouldRun): EffectsOf(NoSchedule, NoExecute).
	ScheduleBlocking = Effects(bitNoSchedule | bitNoExecute)
	// ExecuteBlocking selects the taints that evict a running daemon pod
	// (shouldContinueRunning): EffectsOf(NoExecute).
	ExecuteBlocking = Effects(bitNoExecute)
	// AllEffects selects all three effects:
	// EffectsOf(NoSchedule, PreferNoSchedule, NoExecute).
	AllEffects = Effects(knownBits)
)

// EffectsOf returns the set holding the given effects. Unknown effects are
// ignored, since no taint check can select them.
func EffectsOf(effects ...api.TaintEffect) Effects {
	var s Effects
	for _, e := range effects {
		s |= Effects(effectBit(e) & knownBits)
	}
	return s
}

// Has reports whether e is in s.
func (s Effects) Has(e api.TaintEffect) bool {
	return uint8(s)&knownBits&effectBit(e) != 0
}

// String lists the effects in s, e.g. "NoSchedule|NoExecute"; "" when empty.
func (s Effects) String() string {
	out := ""
	for _, e := range [...]api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute} {
		if s.Has(e) {
			if out != "" {
				out += "|"
			}
			out += string(e)
		}
	}
	return out
}

// effectBit maps an effect to its bit; any other string maps to bitOther.
func effectBit(e api.TaintEffect) uint8 {
	switch e {
	case api.TaintEffectNoSchedule:
		return bitNoSchedule
	case api.TaintEffectPreferNoSchedule:
		return bitPreferNoSchedule
	case api.TaintEffectNoExecute:
		return bitNoExecute
	}
	return bitOther
}
