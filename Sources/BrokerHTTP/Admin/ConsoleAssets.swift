import BrokerCore
/// The admin console's files (`Surfaces/Admin/Console/`), embedded in the binary by `scripts/embed-console`
/// (`ConsoleAssets+Files.swift`): plain HTML, CSS and JavaScript modules, no build step.
public enum ConsoleAssets {
    /// The names of the embedded files, sorted.
    public static var fileNames: [String] { files.keys.sorted() }
}
