package daemonplan

import "github.com/daemonplan/daemonplan/internal/field"

// FieldError is one validation problem: a type, a Kubernetes-style field
// path such as "spec.updateStrategy.rollingUpdate.maxSurge", the bad value
// and a detail. Every package of daemonplan reports validation problems
// with it.
type FieldError = field.Error

// FieldErrors is a list of validation problems; it implements error. Use
// errors.As to get at the list behind an error.
type FieldErrors = field.ErrorList

// FieldErrorType is the kind of a FieldError.
type FieldErrorType = field.ErrorType

// The field error types, as in k8s.io/apimachinery.
const (
	FieldRequired     = field.TypeRequired
	FieldInvalid      = field.TypeInvalid
	FieldNotSupported = field.TypeNotSupported
	FieldForbidden    = field.TypeForbidden
	FieldDuplicate    = field.TypeDuplicate
	FieldTooLong      = field.TypeTooLong
)
