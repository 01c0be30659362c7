#!/usr/bin/env python3
"""User tables (issue 29 item 7): one client writes rows of large texts to one API as fast as it
can, on one keep-alive connection, until the server refuses one (the API's 503: stored text has
used its half of --memory-budget, or the table its row cap) or --writes were sent, while a second
client (127.0.0.2) asks GET /_mock/health every 0.1 s. The server runs under an address-space
limit. Prints how many writes were stored and refused, the second client's outage, the peak RSS
and whether the server survived; exits 1 if it died, did not serve the second client at the end,
or the outage reached --max-outage.

    scripts/attack-user-tables.py BINARY [--api threads|wsuv|internproducts|cse118] [--writes N]
                                         [--address-space-mib 1024] [--max-outage SECONDS] [-- SERVER-FLAGS…]

threads: signups with password, first and last name of 1,000,000 characters; wsuv: registers
with a username and password of 1,000,000 characters; internproducts: registers of 8,000
characters in the query; cse118: messages of 1,000 characters in one new channel.
"""
import http.client, json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import arguments, run

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
MB = 1_000_000


def writer(connection, api):
    """The request of write number `index` for `api`: (method, path, body, headers)."""
    def call(method, path, body=None, headers=None):
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, answer.read()

    if api == "threads":
        text = "t" * MB
        return lambda index: call("POST", "/api/signup", f"email=u{index}@example.com&password={text}&fname={text}&lname={text}", FORM)
    if api == "wsuv":
        text = "w" * MB
        return lambda index: call("POST", "/cgi-bin/register.cgi", f"username={index}{text}&password={text}", FORM)
    if api == "internproducts":
        text = "i" * 3990
        return lambda index: call("GET", f"/register?username={index}{text}&password={text}")
    json_type = {"Content-Type": "application/json"}
    _, login = call("POST", "/api/v2/login", json.dumps({"email": "molly@cse118.com", "password": "molly"}), json_type)
    auth = {**json_type, "Authorization": "Bearer " + json.loads(login)["accessToken"]}
    _, workspace = call("POST", "/api/v2/workspace", json.dumps({"name": "Flood"}), auth)
    _, channel = call("POST", f"/api/v2/workspace/{json.loads(workspace)['id']}/channel", json.dumps({"name": "Flood"}), auth)
    body = json.dumps({"content": "c" * 1000})
    return lambda index: call("POST", f"/api/v2/channel/{json.loads(channel)['id']}/message", body, auth)


def main():
    args = arguments(connections=1, more=[("--api", str, "threads"), ("--writes", int, 200_000),
                                          ("--address-space-mib", int, 1024)])

    def attack(server, held):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        write = writer(connection, args.api)
        stored = refused = 0
        for index in range(args.writes):
            status, _ = write(index)
            if status == 503:
                refused += 1
                if refused == 3:
                    break
            elif status in (200, 201):
                stored += 1
            else:
                return f"{args.api}: write {index} answered {status}, not a store or a 503"
        connection.close()
        return (f"{args.api}: {stored} rows stored, then {refused} writes refused with 503 "
                f"(of at most {args.writes}); server under {args.address_space_mib} MiB of address space")

    sys.exit(run(attack, args.binary, args.server_flags, address_space_mib=args.address_space_mib,
                 max_outage=args.max_outage))


if __name__ == "__main__":
    main()
