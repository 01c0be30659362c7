import Foundation
@testable import MockKit
import XCTest

/// `Table`, `SeedFields` and `SeedFormat` on their own: a small state of people and their pets.
final class TableTests: XCTestCase {
    struct Person: TableRow {
        var id: Int
        var name: String
        var team: String

        static let keyField = "person_id"
        var key: Int { id }

        init(id: Int, name: String, team: String = "red") {
            (self.id, self.name, self.team) = (id, name, team)
        }

        init(seed row: SeedFields) throws(SeedError) {
            id = try row.int("person_id")
            name = try row.text("name")
            team = try row.optional("team") { value throws(SeedError) in try value.string() } ?? "red"
        }

        func write(to seed: inout SeedFieldWriter) {
            seed.field("person_id", id)
            seed.field("name", name)
            seed.field("team", team)
        }
    }

    struct Pet: TableRow {
        var tag: ExactText
        var owner: Int

        static let keyField = "tag"
        var key: ExactText { tag }

        init(seed row: SeedFields) throws(SeedError) {
            tag = ExactText(try row.text("tag"))
            owner = try row.int("owner")
        }

        func write(to seed: inout SeedFieldWriter) {
            seed.field("tag", tag.string)
            seed.field("owner", owner)
        }
    }

    /// A row that names a collar by its UUID.
    struct Tag: TableRow {
        var number: Int
        var collar: UUID

        static let keyField = "number"
        var key: Int { number }

        init(number: Int, collar: UUID) {
            (self.number, self.collar) = (number, collar)
        }

        init(seed row: SeedFields) throws(SeedError) {
            number = try row.int("number")
            collar = UUID(uuidString: try row.text("collar")) ?? UUID()
        }

        func write(to seed: inout SeedFieldWriter) {
            seed.field("number", number)
            seed.field("collar", collar.uuidString)
        }
    }

    struct Counter: SeedRow {
        var next = 1

        init() {}

        init(seed row: SeedFields) throws(SeedError) {
            next = try row.int("next")
        }

        func write(to seed: inout SeedFieldWriter) {
            seed.field("next", next)
        }
    }

    struct Zoo: StoredState {
        var people = Table<Person>(indexes: [.unique(\.name, field: "name", folding: { $0.lowercased() }), .grouped(\.team, field: "team")])
        var pets = Table<Pet>()
        var counter = Recorded(Counter())

        static let format = SeedFormat<Zoo>(
            .table("people", \.people, order: { $0.id < $1.id }),
            .table("pets", \.pets, optional: true, duplicates: .atField, check: { pet, zoo in
                zoo.people.contains(pet.owner) ? nil : .field("owner", "owner \(pet.owner) is not a person")
            }),
            .value("counter", \.counter, optional: true)
        )

        mutating func finishReading() {
            counter.value.next = max(counter.value.next, (people.last?.id ?? 0) + 1)
        }
    }

    private func zoo(_ text: String) throws -> Zoo {
        try Zoo(seed: SeedJSON(Array(text.utf8)))
    }

    private func problem(_ text: String) -> String? {
        do {
            _ = try zoo(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: Table

    func testRowsAreFoundByKeyAndUniqueFieldInAnyLetterCaseAndKeepTheirOrder() {
        var people = Table<Person>(indexes: [.unique(\.name, field: "name", folding: { $0.lowercased() })])
        XCTAssertNil(people.insert(Person(id: 5, name: "Ann")))
        XCTAssertNil(people.insert(Person(id: 2, name: "Bo")))
        XCTAssertEqual(people.insert(Person(id: 5, name: "Cy")), .key)
        XCTAssertEqual(people.insert(Person(id: 7, name: "ANN")), .index(field: "name", value: "ANN"))
        XCTAssertEqual(people.count, 2)
        XCTAssertEqual(people.rows.map(\.id), [5, 2])
        XCTAssertEqual(people[2]?.name, "Bo")
        XCTAssertNil(people[7])
        XCTAssertEqual(people.row(where: "name", is: "aNn")?.id, 5)
        // Compared byte for byte after folding: a decomposed é is another name.
        people.insert(Person(id: 8, name: "Ren\u{E9}"))
        XCTAssertNil(people.row(where: "name", is: "Rene\u{301}"))
        XCTAssertEqual(people.row(where: "name", is: "REN\u{C9}")?.id, 8)
    }

    func testUpdatesMoveIndexEntriesAndRemovalsFreeThem() {
        var people = Table<Person>(indexes: [.unique(\.name, field: "name"), .grouped(\.team, field: "team")])
        for id in 1...6 { people.insert(Person(id: id, name: "p\(id)", team: id % 2 == 0 ? "even" : "odd")) }
        XCTAssertEqual(people.rows(where: "team", is: "odd").map(\.id), [1, 3, 5])
        people.update(4) { $0.team = "odd"; $0.name = "four" }
        XCTAssertEqual(people.rows(where: "team", is: "odd").map(\.id), [1, 3, 4, 5])
        XCTAssertEqual(people.rows(where: "team", is: "even").map(\.id), [2, 6])
        XCTAssertNil(people.row(where: "name", is: "p4"))
        XCTAssertEqual(people.row(where: "name", is: "four")?.id, 4)
        XCTAssertEqual(people.remove(3)?.name, "p3")
        XCTAssertNil(people.remove(3))
        XCTAssertNil(people.update(3) { $0.name = "x" })
        XCTAssertEqual(people.rows(where: "team", is: "odd").map(\.id), [1, 4, 5])
        XCTAssertNil(people.insert(Person(id: 9, name: "p3")), "a removed row's unique value is free again")
        XCTAssertEqual(people.rows.map(\.id), [1, 2, 4, 5, 6, 9])
    }

    func testManyRemovalsPackTheRowsAndKeepEveryLookup() {
        var people = Table<Person>(indexes: [.unique(\.name, field: "name"), .grouped(\.team, field: "team")])
        for id in 0..<1_000 { people.insert(Person(id: id, name: "p\(id)", team: "t\(id % 3)")) }
        for id in 0..<1_000 where id % 10 != 0 { people.remove(id) }
        XCTAssertEqual(people.count, 100)
        XCTAssertEqual(people.rows.map(\.id), Array(stride(from: 0, to: 1_000, by: 10)))
        XCTAssertEqual(people[990]?.name, "p990")
        XCTAssertEqual(people.row(where: "name", is: "p500")?.id, 500)
        XCTAssertEqual(people.rows(where: "team", is: "t0").map(\.id), Array(stride(from: 0, to: 1_000, by: 30)))
        XCTAssertEqual(people.last?.id, 990)
    }

    func testEveryInsertUpdateAndRemovalIsRecordedOnceInOrder() {
        var people = Table<Person>()
        people.insert(Person(id: 1, name: "a"))
        people.insert(Person(id: 2, name: "b"))
        people.update(1) { $0.name = "c" }
        people.remove(2)
        people.insert(Person(id: 1, name: "refused"))
        XCTAssertEqual(people.takeChanges(), [1, 2])
        XCTAssertEqual(people.takeChanges(), [])
        people.update(9) { $0.name = "none" }
        XCTAssertEqual(people.takeChanges(), [], "a change of no row is none")
    }

    func testChangedRowsSayWhatWasRemovedAndWhatIsNew() {
        var people = Table<Person>()
        people.insert(Person(id: 1, name: "a"))
        people.insert(Person(id: 2, name: "b"))
        _ = people.takeChanges()
        people.remove(1)
        people.insert(Person(id: 1, name: "a again"))
        people.remove(2)
        people.insert(Person(id: 3, name: "c"))
        let changes = people.takeChangedRows()
        XCTAssertEqual(changes.map(\.key), [1, 2, 3])
        XCTAssertEqual(changes.map { $0.row?.name }, ["a again", nil, "c"])
        XCTAssertEqual(changes.map { $0.removed?.name }, ["a", "b", nil], "the row as it was removed")
        XCTAssertEqual(changes.map(\.isNew), [false, false, true], "1 and 2 were there before the changes")
        XCTAssertTrue(people.takeChangedRows().isEmpty)
    }

    func testRowsAreGroupedByAUUID() {
        var tags = Table<Tag>(indexes: [.grouped(\.collar, field: "collar")])
        let (red, blue) = (UUID(), UUID())
        for (number, collar) in [red, blue, red].enumerated() { tags.insert(Tag(number: number, collar: collar)) }
        XCTAssertEqual(tags.rows(where: "collar", is: red).map(\.number), [0, 2])
        XCTAssertEqual(tags.count(where: "collar", is: red), 2)
        XCTAssertEqual(tags.count(where: "collar", is: UUID()), 0)
        // Removed last first, as a channel's messages go with it.
        for number in [2, 0] { tags.remove(number) }
        XCTAssertEqual(tags.count(where: "collar", is: red), 0)
        XCTAssertEqual(tags.rows(where: "collar", is: blue).map(\.number), [1])
    }

    // MARK: Seed format

    func testADocumentIsReadByFieldNameInAnyOrderAndWrittenInTheFormatsOrder() throws {
        // A name given twice counts the last time.
        let zoo = try zoo(#"{"pets":[{"owner":2,"tag":"rex"}],"extra":1,"people":[{"name":"Bo","person_id":2,"team":null},{"person_id":1,"name":"Cy","team":"blue","age":3,"name":"Al"}]}"#)
        XCTAssertEqual(zoo.people.rows.map(\.id), [1, 2], "sorted as the format orders them")
        XCTAssertEqual(zoo.counter.value.next, 3)
        XCTAssertEqual(String(decoding: zoo.seedDocument, as: UTF8.self),
                       #"{"people":[{"person_id":1,"name":"Al","team":"blue"},{"person_id":2,"name":"Bo","team":"red"}],"#
                           + #""pets":[{"tag":"rex","owner":2}],"counter":{"next":3}}"#)
        XCTAssertEqual(try Zoo(seed: SeedJSON(zoo.seedDocument)).seedDocument, zoo.seedDocument)
    }

    func testEveryProblemNamesItsPlace() {
        XCTAssertEqual(problem(#"[]"#), "$: expected an object")
        XCTAssertEqual(problem(#"{"pets":[]}"#), "$.people: missing")
        XCTAssertEqual(problem(#"{"people":{}}"#), "$.people: expected an array")
        XCTAssertEqual(problem(#"{"people":[{"person_id":1}]}"#), "$.people[0].name: missing")
        XCTAssertEqual(problem(#"{"people":[{"person_id":1,"name":null}]}"#), "$.people[0].name: expected a string")
        XCTAssertEqual(problem(#"{"people":[{"person_id":"1","name":"a"}]}"#), "$.people[0].person_id: expected an integer")
        XCTAssertEqual(problem(#"{"people":[{"person_id":1,"name":""}]}"#), "$.people[0].name: must not be empty")
        XCTAssertEqual(problem(#"{"people":[{"person_id":1,"name":"a"},{"person_id":1,"name":"b"}]}"#), "$.people[1]: duplicate person_id 1")
        XCTAssertEqual(problem(#"{"people":[{"person_id":1,"name":"a"},{"person_id":2,"name":"A"}]}"#), "$.people[1]: duplicate name A")
        XCTAssertEqual(problem(#"{"people":[{"person_id":1,"name":"a"}],"pets":[{"tag":"x","owner":1},{"tag":"x","owner":1}]}"#),
                       "$.pets[1].tag: duplicate tag x")
        XCTAssertEqual(problem(#"{"people":[],"pets":[{"tag":"x","owner":4}]}"#), "$.pets[0].owner: owner 4 is not a person")
        XCTAssertEqual(problem(#"{"people":[],"counter":{"next":"2"}}"#), "$.counter.next: expected an integer")
        XCTAssertTrue(problem(#"{"people":[{"person_id":1,"name":"a"}"#)?.hasPrefix("$: not valid JSON") == true)
    }

    func testChangesAreRecordedAsSeedRowsAndReadingIsNone() throws {
        var zoo = try zoo(#"{"people":[{"person_id":1,"name":"Al"}],"pets":[{"tag":"rex","owner":1}]}"#)
        XCTAssertTrue(zoo.takeChanges().isEmpty, "reading a document changes nothing")
        zoo.people.insert(Person(id: 4, name: "Di"))
        zoo.pets.remove(ExactText("rex"))
        zoo.counter.value.next = 5
        let changes = zoo.takeChanges()
        XCTAssertEqual(changes.paths, [.row("people", "person_id", .int(4)), .row("pets", "tag", .string("rex")), .member("counter")])
        XCTAssertEqual(zoo.seedRow(at: changes.paths[0]).map { String(decoding: $0, as: UTF8.self) }, #"{"person_id":4,"name":"Di","team":"red"}"#)
        XCTAssertNil(zoo.seedRow(at: changes.paths[1]), "a removed row is written as null")
        XCTAssertEqual(zoo.seedRow(at: changes.paths[2]).map { String(decoding: $0, as: UTF8.self) }, #"{"next":5}"#)
        XCTAssertTrue(zoo.takeChanges().isEmpty)
    }
}
