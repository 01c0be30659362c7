import MockHTTP
import XCTest

/// Route tables are checked when the router is built: what cannot work stops start-up with a
/// message that names the groups involved.
final class RouteTableTests: XCTestCase {
    private func group(_ name: String, _ routes: [(Methods, String)], matching: PathMatching = PathMatching()) -> RouteGroup {
        RouteGroup(name: name, matching: matching, routes: routes.map { Route($0.0, $0.1) { _ in Response(status: 204) } },
                   methodNotAllowed: { _ in Response(status: 405) })
    }

    private func problem(_ groups: [RouteGroup]) -> String? {
        do {
            _ = try Router(groups: groups)
            return nil
        } catch {
            return error.description
        }
    }

    func testWellFormedTablesPass() {
        XCTAssertNil(problem([
            group("one", [(.get, "/items"), (.post, "/items"), (.get, "/items/{id}"), (.delete, "/items/{id}")]),
            group("two", [(.any, "/cgi/{script}"), (.get, "/")]),
        ]))
    }

    func testAnUnbalancedBraceIsRefused() {
        XCTAssertEqual(problem([group("one", [(.get, "/items/{id")])]), "one: route /items/{id has an unbalanced { or } in {id")
        XCTAssertEqual(problem([group("one", [(.get, "/items/id}/x")])]), "one: route /items/id}/x has an unbalanced { or } in id}")
        XCTAssertEqual(problem([group("one", [(.get, "/items/{}")])]), "one: route /items/{} has an unbalanced { or } in {}")
        XCTAssertEqual(problem([group("one", [(.get, "/items/{a}{b}")])]), "one: route /items/{a}{b} has an unbalanced { or } in {a}{b}")
    }

    func testAParameterNamedTwiceIsRefused() {
        XCTAssertEqual(problem([group("one", [(.get, "/a/{id}/b/{id}")])]), "one: route /a/{id}/b/{id} names {id} twice")
    }

    func testTheSameMethodAndPatternTwiceInAGroupIsRefused() {
        XCTAssertEqual(problem([group("one", [(.get, "/items"), ([.get, .post], "/items")])]),
                       "one: GET /items is in the route table twice")
        XCTAssertEqual(problem([group("one", [(.delete, "/items/{id}"), (.any, "/items/{key}")])]),
                       "one: DELETE /items/{key} is in the route table twice")
    }

    func testTwoGroupsClaimingOnePathAreNamed() {
        XCTAssertEqual(problem([group("one", [(.get, "/api/user")]), group("two", [(.post, "/api/user")])]),
                       "one and two both claim /api/user (GET and POST); requests would reach one only")
        XCTAssertEqual(problem([group("one", [(.get, "/api/{name}")]), group("two", [(.post, "/api/user")])]),
                       "one and two both claim /api/{name} and /api/user (GET and POST); requests would reach one only")
        XCTAssertEqual(problem([group("one", [(.get, "/login")], matching: PathMatching(caseInsensitive: true)),
                                group("two", [(.get, "/LOGIN")])]),
                       "one and two both claim /login and /LOGIN (GET and GET); requests would reach one only")
    }

    func testTwoGroupsOfOneNameAreRefused() {
        XCTAssertEqual(problem([group("one", [(.get, "/a")]), group("one", [(.get, "/b")])]), "two route groups are named one")
    }
}
