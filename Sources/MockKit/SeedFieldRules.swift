/// Fields an API refuses by a rule of its own, in its own words, at the field:
/// `try row.int("tweet_id", where: { $0 >= 1 }, else: "must be 1 or more")` refuses `0` with
/// `$.tweets[2].tweet_id: must be 1 or more`.
extension SeedFields {
    public func string(_ name: String, where isValid: (String) -> Bool,
                       else problem: @autoclosure () -> String) throws(SeedError) -> String {
        try value(name, isValid, problem) { value throws(SeedError) in try value.string() }
    }

    public func int(_ name: String, where isValid: (Int) -> Bool,
                    else problem: @autoclosure () -> String) throws(SeedError) -> Int {
        try value(name, isValid, problem) { value throws(SeedError) in try value.int() }
    }

    private func value<Value>(_ name: String, _ isValid: (Value) -> Bool, _ problem: () -> String,
                              _ read: (inout SeedReader) throws(SeedError) -> Value) throws(SeedError) -> Value {
        try value(name) { value throws(SeedError) in
            let result = try read(&value)
            guard isValid(result) else { throw value.fail(problem()) }
            return result
        }
    }
}
