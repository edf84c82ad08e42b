@_exported import Foundation  // as the SDK's module does

// The part of CoreImage (and of the CoreGraphics types it re-exports) the README's enrolment snippet uses, with
// the iOS 18 SDK's signatures; written for the type check, not copied from the SDK.

/// An affine transform (CoreGraphics).
public struct CGAffineTransform: Sendable {
    /// A scale by `sx` and `sy`.
    public init(scaleX sx: CGFloat, y sy: CGFloat) {}
}

/// A bitmap image (CoreGraphics).
public final class CGImage {}

/// An image recipe.
open class CIImage: NSObject {
    /// The image's extent.
    open var extent: CGRect { .zero }
    /// The image transformed by `matrix`.
    open func transformed(by matrix: CGAffineTransform) -> CIImage { self }
}

/// A filter, found by name (`CIQRCodeGenerator`), with key-value inputs.
open class CIFilter: NSObject {
    /// The filter named `name`, or nil.
    public init?(name: String) {}
    /// Sets an input (`inputMessage`, `inputCorrectionLevel`).
    open func setValue(_ value: Any?, forKey key: String) {}
    /// The filter's output.
    open var outputImage: CIImage? { nil }
}

/// Renders images.
open class CIContext: NSObject {
    /// A default context.
    public override init() {}
    /// A bitmap of `image` within `fromRect`.
    open func createCGImage(_ image: CIImage, from fromRect: CGRect) -> CGImage? { nil }
}
