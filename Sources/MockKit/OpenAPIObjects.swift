import MockSupport

/// An API's OpenAPI description, written with the builder's `Operation`, `ref` and `object` by
/// their short names.
public protocol OpenAPIDescription {}

extension OpenAPIDescription {
    public typealias Operation = OpenAPIBuilder.Operation

    /// `{"$ref":"#/components/schemas/Name"}`
    public static func ref(_ name: String) -> String { ##"{"$ref":"#/components/schemas/\##(name)"}"## }

    /// The schema of an object with `properties` (JSON text, `"id":{…},"name":{…}`), each of them
    /// required but the `optional` ones, so a property is named once; `closed` refuses any other.
    public static func object(_ properties: String, optional: [String] = [], closed: Bool = true) -> String {
        let names = required(properties, optional: optional)
        let rest = closed ? #","additionalProperties":false"# : ""
        return #"{"type":"object","properties":{\#(properties)},"required":[\#(names)]\#(rest)}"#
    }

    /// The names of `properties` but the `optional` ones, as the items of a `required` list.
    public static func required(_ properties: String, optional: [String] = []) -> String {
        let names = (try? JSONParser.parse(Array("{\(properties)}".utf8)))?.objectValue?.keys ?? []
        return names.filter { !optional.contains($0) }.map { #""\#($0)""# }.joined(separator: ",")
    }
}
