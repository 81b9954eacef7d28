// Package resource owns Kubernetes resource quantities and the arithmetic
// the scheduler does on them: parsing a quantity ("100m", "1.5Gi", "2e3")
// exactly as apimachinery's resource.ParseQuantity does, adding and
// comparing exactly, printing the text Kubernetes prints, lists of named
// quantities, and the effective requests of a pod (component-helpers'
// resource.PodRequests). It imports only the standard library.
//
// It does not validate resource names or decide which resources a node has
// or whether a pod fits; it does not know feature gates beyond the
// defaults of v1.34 to v1.37 stated below (the same in each). Every function is pure and every value immutable:
// results never share mutable state with inputs.
//
// # Entry points
//
//   - [Parse], [MustParse]: text to [Quantity]; errors are [*ParseError]
//     wrapping [ErrSyntax], [ErrNumber] or [ErrSuffix].
//   - [NewQuantity], [NewMilliQuantity]: a [Quantity] from an int64.
//   - [Quantity.Add], Sub, Neg, Cmp, Equal, Sign, IsZero: exact arithmetic.
//   - [Quantity.String], Canonical, [Format], WithFormat: printing.
//   - [Quantity.Value], MilliValue, ScaledValue: rounded integers.
//   - [List], [List.Add], [List.Max], [List.Names], [List.String]: named
//     quantities.
//   - [PodResources], [Container], [PodRequests], [Default],
//     [EffectiveRequests]: the requests a pod puts on a node.
//
// # Parsing
//
// [Parse] accepts exactly the texts apimachinery v0.34 accepts, with the same
// value and format. A text is read in this order:
//
//  1. The empty text is rejected ([ErrSyntax]).
//  2. An optional sign, + or -.
//  3. Leading zeros, skipped. A text that ends here ("0", "-", "+000") is 0
//     in [DecimalSI].
//  4. Integer digits, then optionally "." and fraction digits. Either run
//     may be empty: "5.", ".5" and even "." are numbers.
//  5. A tail: letters from "eEinumkKMGTP", an optional sign, digits, and
//     nothing after (otherwise [ErrSyntax], as for "1 " or "1.5.5").
//  6. The tail must be a suffix (otherwise [ErrSuffix]): "" n u m k M G T P
//     E ([DecimalSI], powers of 1000), Ki Mi Gi Ti Pi Ei ([BinarySI], powers of
//     1024), or e or E followed by a signed base-10 int64 ([DecimalExponent]).
//     The written exponent is truncated to 32 bits, so 1e4294967296 is 1.
//     Note that a lone "E" is exa (1E is 10^18) while 1E3 is 1000.
//  7. A number without digits is 0 ("Mi", "m", "." all parse), except on
//     the exact path below, where it is rejected ([ErrNumber]: ".e-10",
//     ".Pi").
//
// apimachinery then takes one of two paths, which matter because they
// differ in what they keep and reject. The int64 path takes decimal numbers
// with at most 18 digits (leading zeros not counted, an empty integer part
// counted as one digit) whose value is a multiple of 10^-9, and [BinarySI]
// integers with at most 11, 8, 5 or 2 digits for Ki, Mi, Gi and Ti. The
// exact path takes everything else and:
//
//  1. rounds a non-zero magnitude up to a multiple of 10^-9 (0.1n is 1n,
//     -1.5n is -2n);
//  2. caps [BinarySI] magnitudes at 2^63-1 (8Ei becomes 9223372036854775807);
//     decimal formats are never capped;
//  3. turns a [BinarySI] value strictly between -1 and 1 into [DecimalSI].
//
// # Printing
//
// String prints what apimachinery's Quantity.String prints:
//
//  1. A text taken by the int64 path is printed as written when
//     apimachinery considers it canonical: for a decimal suffix, when the
//     exponent (suffix exponent minus fraction digits) is a multiple of 3,
//     the integer part has a digit besides leading zeros, and the digits do
//     not end in "000" ("+1", "0001", "1.500", "1E3", "5.", "1e+3" all print
//     as written; "0.5", "1.0" and "1000m" do not); for a binary suffix,
//     when the number is not a multiple of 8 ("+5Ti", but not "2000Ki").
//     Canonical drops the written text. Arithmetic results never keep one.
//  2. Zero prints "0".
//  3. [BinarySI] prints the integer as m times the largest power of 1024 with
//     a suffix (1024Ki is 1Mi, 1.5Gi is 1536Mi), unless the value is
//     strictly between -1024 and 1024 or not an integer; then it prints as
//     [DecimalSI] (0.5Ki is 512, 1.1Ki is 1126400m).
//  4. [DecimalSI] and [DecimalExponent] print an integer times the largest
//     power of 1000 that leaves no fraction: 1000m is 1, 1.5 is 1500m, 0.1m
//     is 100u, 15e2 is 1500, 1e1000 is 10e999. DecimalSI uses the suffixes
//     n to E (beyond E, see Divergences); DecimalExponent writes "e" and the
//     exponent, omitted when 0.
//  5. A [Quantity] with no format (the zero [Format]) prints as
//     [DecimalExponent].
//
// # Arithmetic
//
// Values are exact: an int64 times a power of ten, with a math/big
// fallback when the int64 would overflow. Add and Sub keep the format of
// their receiver, or take the argument's when the receiver is zero, as
// apimachinery's Add does (so 0 + 1Ki is 1Ki, 1Ki + 1 is 1025, and after
// 1 + -1 the next operand's format wins). Cmp compares values only.
// Value, MilliValue and ScaledValue round away from zero and clamp to the
// int64 range.
//
// # Divergences from apimachinery
//
// Each is deliberate, documented here and pinned by a test in
// kube/differential:
//
//  1. [DecimalSI] values of 10^21 and more, and [BinarySI] multiples of 1024^7,
//     have no suffix in apimachinery, which prints their mantissa alone:
//     1000E prints "1". Here they print exactly: "1000E", "1024Ei".
//  2. apimachinery computes printed exponents in 32 bits; where the
//     canonical exponent comes within 3 of 2^31 it wraps and prints a
//     non-canonical or wrong exponent. Here exponents are exact, and never
//     written above 2147483646 (the mantissa takes the extra zeros), so that
//     every printed value parses back to itself.
//  3. For negative values apimachinery's MilliValue and Value depend on its
//     internal representation (Value of -1.5 is -2, but MilliValue of -1.5n
//     is +1); here both always round away from zero. Out of range,
//     apimachinery overflows silently; here they clamp (and ScaledValue
//     reports it).
//  4. apimachinery's exact path builds 10^n for a written exponent n
//     (1e-999999999 or 12345678901234567890e999999999 run for hours); here
//     the cost of [Parse], String and Cmp does not grow with the exponent.
//     Add of two values whose exponents differ by n still builds an n-digit
//     number, as any exact sum must.
//
// # Pod requests
//
// [PodRequests] follows component-helpers resource.PodRequests with default
// options, as kube-scheduler v1.34 to v1.37 calls it (PodLevelResources is
// beta and on): regular containers are summed; each sidecar (an init
// container with restartPolicy Always) is added to that sum and to a
// running sidecar total; every other init container counts as its own
// requests plus the sidecars started before it; the pod needs the
// per-resource maximum of the sum and those init-time totals; pod-level
// requests for cpu, memory and hugepages-* replace the container figures;
// pod overhead is added. [Default] applies the API server's defaulting
// first (a container's limits stand in for its missing requests; every
// quantity is rounded up to 1m; missing pod-level requests come from the
// containers or the pod-level limits), and [EffectiveRequests] is
// PodRequests of the defaulted pod.
package resource
