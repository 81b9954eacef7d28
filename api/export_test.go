package api

// ValidSelectorMatches lets the external tests compare Validate's reading
// of a label selector with package selector, which imports this package.
var ValidSelectorMatches = validSelectorMatches
