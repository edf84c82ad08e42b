@_exported import Foundation  // as the SDK's module does

/// A view controller; main-actor isolated, as in the iOS 18 SDK.
@MainActor open class UIViewController: NSObject {
    public override init() {}
}
