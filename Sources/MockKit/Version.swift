/// The version printed by `--version`, the banner, `/_mock/health` and the index page.
public enum MockBackend {
    public static let version = "0.1.0"
}
