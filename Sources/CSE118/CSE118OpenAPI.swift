import Foundation
import MockHTTP
import MockKit

/// This API's OpenAPI 3.1 document (served at `/_mock/openapi/cse118.json`) and the HTML page
/// of `/api/v2/api-docs/`, which is built from the document so the two never disagree.
/// Kept as a JSON literal: it reads exactly as it is served and diffs cleanly.
enum CSE118OpenAPI {
    static let document: [UInt8] = Array(text.utf8)

    /// A readable list of the endpoints, with a link to the full document.
    static func html(base: String) -> String {
        var rows = ""
        if let paths = parsed?.objectValue?["paths"]?.objectValue {
            for (path, item) in paths.members {
                for (method, operation) in item.objectValue?.members ?? [] where method != "parameters" {
                    let summary = operation.objectValue?["summary"]?.stringValue ?? ""
                    rows += "<tr><td><code>\(method.uppercased())</code></td><td><code>\(escape(base + path))</code></td>"
                        + "<td>\(escape(summary))</td></tr>\n"
                }
            }
        }
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>cse118 API</title>
        <style>body{font-family:sans-serif;margin:2em}td{padding:.2em .8em;border-bottom:1px solid #ddd}</style></head>
        <body><h1>cse118.com API (mock-backend)</h1>
        <p>Every path is also served under <code>/api/v1</code>. Log in with <code>POST \(base)/login</code> and send
        <code>Authorization: Bearer &lt;accessToken&gt;</code>. The OpenAPI 3.1 document:
        <a href="/_mock/openapi/cse118.json">/_mock/openapi/cse118.json</a>.</p>
        <table><tr><th>method</th><th>path</th><th>what it does</th></tr>
        \(rows)</table></body></html>

        """
    }

    private static let parsed = try? JSONParser.parse(document)

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private static let text = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "cse118.com Slack-like API (mock-backend)",
    "version": "2.0.0",
    "description": "Workspaces, channels, messages and members of UC Santa Cruz CSE 118, as reproduced by mock-backend. Every path is served identically under /api/v2 and /api/v1, with or without a trailing slash; path ids and the mid query value are UUIDs matched case-insensitively. Bodies are JSON whatever the Content-Type says (an empty body is {}). Every error is {\"message\":…,\"status\":N}, except validation failures (400), which carry an errors array. A known path with another method answers 405 with an Allow header and {\"message\":\"Method not allowed\",\"status\":405}. Log in with a seeded account (e.g. sslug@ucsc.edu / 1234567) and send the accessToken as Authorization: Bearer <token>."
  },
  "servers": [
    { "url": "/api/v2", "description": "current API" },
    { "url": "/api/v1", "description": "the same API under its Fall 2022 prefix" }
  ],
  "security": [ { "bearerAuth": [] } ],
  "tags": [
    { "name": "login" }, { "name": "workspace" }, { "name": "channel" }, { "name": "message" },
    { "name": "member" }, { "name": "reset" }, { "name": "docs" }
  ],
  "paths": {
    "/login": {
      "post": {
        "tags": ["login"],
        "operationId": "login",
        "summary": "Log in with email (any letter case) and password; every login issues a new token",
        "security": [],
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Credentials" } } } },
        "responses": {
          "200": { "description": "Logged in", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/LoginAnswer" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "description": "Unknown email or wrong password: Invalid credentials", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
        }
      }
    },
    "/workspace": {
      "get": {
        "tags": ["workspace"],
        "operationId": "listWorkspaces",
        "summary": "Workspaces the caller owns or is a member of, oldest first",
        "responses": {
          "200": { "description": "The workspaces", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Workspace" } } } } },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" }
        }
      },
      "post": {
        "tags": ["workspace"],
        "operationId": "createWorkspace",
        "summary": "Create a workspace owned by the caller",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/NameInput" } } } },
        "responses": {
          "201": { "description": "The new workspace", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Workspace" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" }
        }
      }
    },
    "/workspace/{id}": {
      "parameters": [ { "$ref": "#/components/parameters/id" } ],
      "delete": {
        "tags": ["workspace"],
        "operationId": "deleteWorkspace",
        "summary": "Delete a workspace (owner only) with its channels, messages and memberships",
        "responses": {
          "200": { "description": "The deleted workspace, counts as just before deletion", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Workspace" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      }
    },
    "/workspace/{id}/channel": {
      "parameters": [ { "$ref": "#/components/parameters/id" } ],
      "get": {
        "tags": ["channel"],
        "operationId": "listChannels",
        "summary": "Channels of a visible workspace, oldest first",
        "responses": {
          "200": { "description": "The channels", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Channel" } } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      },
      "post": {
        "tags": ["channel"],
        "operationId": "createChannel",
        "summary": "Create a channel in a workspace (owner only)",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/NameInput" } } } },
        "responses": {
          "201": { "description": "The new channel", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Channel" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      }
    },
    "/workspace/{id}/member": {
      "parameters": [ { "$ref": "#/components/parameters/id" } ],
      "get": {
        "tags": ["member"],
        "operationId": "listWorkspaceMembers",
        "summary": "Members of a visible workspace (the owner not included), ordered by name",
        "responses": {
          "200": { "description": "The members", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Member" } } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      },
      "post": {
        "tags": ["member"],
        "operationId": "addWorkspaceMember",
        "summary": "Add an account to a workspace (owner only); no body",
        "parameters": [ { "$ref": "#/components/parameters/mid" } ],
        "responses": {
          "201": { "description": "The added member", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Member" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" },
          "409": { "description": "Member owns this workspace, or Member already in workspace (nothing changes)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
        }
      },
      "delete": {
        "tags": ["member"],
        "operationId": "removeWorkspaceMember",
        "summary": "Remove a member from a workspace (owner only); their messages stay",
        "parameters": [ { "$ref": "#/components/parameters/mid" } ],
        "responses": {
          "200": { "description": "The removed member", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Member" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      }
    },
    "/channel/{id}": {
      "parameters": [ { "$ref": "#/components/parameters/id" } ],
      "delete": {
        "tags": ["channel"],
        "operationId": "deleteChannel",
        "summary": "Delete a channel (workspace owner only) with its messages",
        "responses": {
          "200": { "description": "The deleted channel", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Channel" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      }
    },
    "/channel/{id}/message": {
      "parameters": [ { "$ref": "#/components/parameters/id" } ],
      "get": {
        "tags": ["message"],
        "operationId": "listMessages",
        "summary": "Messages of a visible channel, by posted time",
        "responses": {
          "200": { "description": "The messages", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Message" } } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      },
      "post": {
        "tags": ["message"],
        "operationId": "postMessage",
        "summary": "Post a message as the caller (owner or member)",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ContentInput" } } } },
        "responses": {
          "201": { "description": "The new message", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Message" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      }
    },
    "/message/{id}": {
      "parameters": [ { "$ref": "#/components/parameters/id" } ],
      "delete": {
        "tags": ["message"],
        "operationId": "deleteMessage",
        "summary": "Delete a message (its poster or the workspace owner)",
        "responses": {
          "200": { "description": "The deleted message", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Message" } } } },
          "400": { "$ref": "#/components/responses/BadRequest" },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" },
          "404": { "$ref": "#/components/responses/NotFound" }
        }
      }
    },
    "/member": {
      "get": {
        "tags": ["member"],
        "operationId": "listMembers",
        "summary": "Every account, the caller included, ordered by name",
        "responses": {
          "200": { "description": "The accounts", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Member" } } } } },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" }
        }
      }
    },
    "/reset": {
      "put": {
        "tags": ["reset"],
        "operationId": "reset",
        "summary": "Restore the caller's fixture workspaces and delete the workspaces they created; nobody else's data changes",
        "responses": {
          "200": { "description": "Done", "content": { "application/json": { "schema": { "type": "object", "additionalProperties": false } } } },
          "401": { "$ref": "#/components/responses/Unauthorized" },
          "403": { "$ref": "#/components/responses/Forbidden" }
        }
      }
    },
    "/api-docs": {
      "get": {
        "tags": ["docs"],
        "operationId": "apiDocs",
        "summary": "This API as a readable HTML page",
        "security": [],
        "responses": {
          "200": { "description": "The page", "content": { "text/html": { "schema": { "type": "string" } } } }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearerAuth": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "The accessToken of POST /login. Missing header: 401; unknown token: 403." }
    },
    "parameters": {
      "id": { "name": "id", "in": "path", "required": true, "description": "A UUID, any letter case", "schema": { "type": "string", "format": "uuid" } },
      "mid": { "name": "mid", "in": "query", "required": true, "description": "The member id (a UUID, any letter case)", "schema": { "type": "string", "format": "uuid" } }
    },
    "schemas": {
      "Credentials": {
        "type": "object",
        "required": ["email", "password"],
        "properties": { "email": { "type": "string" }, "password": { "type": "string" } },
        "additionalProperties": false
      },
      "NameInput": {
        "type": "object",
        "required": ["name"],
        "properties": { "name": { "type": "string", "minLength": 1, "maxLength": 32 } },
        "additionalProperties": false
      },
      "ContentInput": {
        "type": "object",
        "required": ["content"],
        "properties": { "content": { "type": "string", "minLength": 1, "maxLength": 1000 } },
        "additionalProperties": false
      },
      "LoginAnswer": {
        "type": "object",
        "required": ["id", "name", "role", "accessToken"],
        "properties": {
          "id": { "type": "string", "format": "uuid" },
          "name": { "type": "string" },
          "role": { "type": "string", "const": "member" },
          "accessToken": { "type": "string" }
        },
        "additionalProperties": false
      },
      "Workspace": {
        "type": "object",
        "required": ["id", "name", "owner", "channels"],
        "properties": {
          "id": { "type": "string", "format": "uuid" },
          "name": { "type": "string" },
          "owner": { "type": "string", "format": "uuid", "description": "The owner's member id" },
          "channels": { "type": "integer", "minimum": 0, "description": "Number of channels now in the workspace" }
        },
        "additionalProperties": false
      },
      "Channel": {
        "type": "object",
        "required": ["id", "name", "messages"],
        "properties": {
          "id": { "type": "string", "format": "uuid" },
          "name": { "type": "string" },
          "messages": { "type": "integer", "minimum": 0, "description": "Number of messages now in the channel" }
        },
        "additionalProperties": false
      },
      "Message": {
        "type": "object",
        "required": ["id", "member", "posted", "content"],
        "properties": {
          "id": { "type": "string", "format": "uuid" },
          "member": { "type": "string", "format": "uuid", "description": "The poster's member id" },
          "posted": { "type": "string", "format": "date-time", "examples": ["2023-05-01T12:18:48.000Z"] },
          "content": { "type": "string" }
        },
        "additionalProperties": false
      },
      "Member": {
        "type": "object",
        "required": ["id", "name"],
        "properties": { "id": { "type": "string", "format": "uuid" }, "name": { "type": "string" } },
        "additionalProperties": false
      },
      "Error": {
        "type": "object",
        "required": ["message", "status"],
        "properties": { "message": { "type": "string" }, "status": { "type": "integer" } },
        "additionalProperties": false
      },
      "ValidationError": {
        "type": "object",
        "required": ["message", "errors", "status"],
        "properties": {
          "message": { "type": "string" },
          "errors": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["path", "message", "errorCode"],
              "properties": {
                "path": { "type": "string", "examples": ["/body/name"] },
                "message": { "type": "string" },
                "errorCode": { "type": "string", "examples": ["minLength.openapi.validation"] }
              },
              "additionalProperties": false
            }
          },
          "status": { "type": "integer", "const": 400 }
        },
        "additionalProperties": false
      }
    },
    "responses": {
      "BadRequest": {
        "description": "A path id, query parameter or body that breaks the schema (validation envelope), or a body that is not JSON ({\"message\":\"Request body is not valid JSON\",\"status\":400})",
        "content": { "application/json": { "schema": { "oneOf": [ { "$ref": "#/components/schemas/ValidationError" }, { "$ref": "#/components/schemas/Error" } ] } } }
      },
      "Unauthorized": {
        "description": "No Authorization header: Authorization header required",
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
      },
      "Forbidden": {
        "description": "Unknown token (Invalid access token), or a visible resource the caller may not change (Only the workspace owner may do that; Only the poster or the workspace owner may delete this message)",
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
      },
      "NotFound": {
        "description": "The resource does not exist or is not visible to the caller (Workspace not found, Channel not found, Message not found), or the mid names no account (Member not found) or no member (Member not in workspace)",
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
      }
    }
  }
}
"""#
}
