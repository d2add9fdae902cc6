#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scalar libm entry points used outside hot loops (per row or per window, never per element).
@inline(__always) func libmLog(_ x: Double) -> Double { log(x) }
@inline(__always) func libmLog10(_ x: Float) -> Float { log10f(x) }
@inline(__always) func libmCos(_ x: Double) -> Double { cos(x) }
@inline(__always) func libmSin(_ x: Double) -> Double { sin(x) }
@inline(__always) func libmExp(_ x: Double) -> Double { exp(x) }
@inline(__always) func libmExpF(_ x: Float) -> Float { expf(x) }
@inline(__always) func libmPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
