"""An SMTP server for tests/it/transport.rs: aiosmtpd on a loopback port, with
STARTTLS or TLS from the start, and AUTH (PLAIN and LOGIN, only over TLS) for one user.

Each message received is written to OUT/N.eml, with OUT/N.json saying how it came:
{"tls": true, "user": "...", "mechanism": "PLAIN", "from": "...", "to": [...]}.
Prints "ready" once it accepts connections; runs until killed.
"""

import argparse
import json
import os
import ssl
import sys
import time
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


# aiosmtpd warns about its own use of a deprecated attribute.
warnings.filterwarnings("ignore", category=DeprecationWarning)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--mode", choices=["starttls", "smtps", "plain"], required=True)
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--mechanisms", default="PLAIN,LOGIN")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    used = {}

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login.decode() == args.user
            and auth_data.password.decode() == args.password
        )
        if ok:
            used[id(session)] = (auth_data.login.decode(), mechanism)
        # handled=False: aiosmtpd answers a refusal with 535 itself.
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    class Handler:
        count = 0

        async def handle_DATA(self, server, session, envelope):
            Handler.count += 1
            base = os.path.join(args.out, str(Handler.count))
            with open(base + ".eml", "wb") as f:
                f.write(envelope.original_content or envelope.content)
            login, mechanism = used.get(id(session), (None, None))
            record = {
                "tls": session.ssl is not None
                or server.transport.get_extra_info("ssl_object") is not None,
                "user": login,
                "mechanism": mechanism,
                "from": envelope.mail_from,
                "to": envelope.rcpt_tos,
            }
            with open(base + ".json.tmp", "w") as f:
                json.dump(record, f)
            os.rename(base + ".json.tmp", base + ".json")
            return "250 OK"

    offered = {m.strip().upper() for m in args.mechanisms.split(",")}
    excluded = [m for m in ("PLAIN", "LOGIN") if m not in offered]
    settings = dict(
        authenticator=authenticator if args.user else None,
        # With TLS from the start the whole session is TLS: aiosmtpd only counts STARTTLS.
        auth_require_tls=args.mode == "starttls",
        auth_exclude_mechanism=excluded,
    )
    if args.mode == "starttls":
        settings["tls_context"] = context
        settings["require_starttls"] = False
    controller = Controller(
        Handler(),
        hostname="127.0.0.1",
        port=args.port,
        ssl_context=context if args.mode == "smtps" else None,
        **settings,
    )
    controller.start()
    print("ready", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    controller.stop()


if __name__ == "__main__":
    sys.exit(main())
