import MockApp
import MockKit

extension TestServer {
    /// The whole mock app (or some APIs) with one clock and one source of random values shared by
    /// the APIs, `/_mock/clock`, resets and the `Date` header, as the program wires them.
    public convenience init(apis only: [String]? = nil, clock: ServerClock, randomness: Randomness = Randomness(),
                            options: APIOptions = APIOptions(), settings: AppSettings = AppSettings()) throws {
        var options = options, settings = settings
        options.clock = { clock.now() }
        options.randomness = randomness
        settings.clock = clock
        settings.randomness = randomness
        try self.init(apis: only, options: options, settings: settings) { $0.now = { clock.now() } }
    }
}
