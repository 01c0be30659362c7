// MockHTTP declarations the platform files use but that live in files importing Foundation, which
// on Linux re-exports Glibc and so cannot sit beside the stand-in Darwin module.
struct PeerAddress {
    var host: String
    var port: Int
}
