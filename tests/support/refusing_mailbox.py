"""An aiosmtpd handler for tests/it/mail.rs: delivers into a Maildir as
aiosmtpd.handlers.Mailbox does, but answers RCPT TO for each address named after the
Maildir with 550, as a server does for a mailbox that does not exist, and MAIL FROM
for each of them with 553, as a server does for a sender it will not take.

    PYTHONPATH=tests/support python3 -m aiosmtpd -n -l 127.0.0.1:PORT \\
        -c refusing_mailbox.RefusingMailbox MAILDIR [ADDRESS...]
"""

from aiosmtpd.handlers import Mailbox


class RefusingMailbox(Mailbox):
    def __init__(self, mail_dir, refused):
        super().__init__(mail_dir)
        self.refused = {address.lower() for address in refused}

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if address.lower() in self.refused:
            return "553 5.7.1 <%s>: Sender address rejected: not owned by user" % address
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refused:
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    @classmethod
    def from_cli(cls, parser, *args):
        if len(args) < 1:
            parser.error("The directory for the maildir is required")
        return cls(args[0], args[1:])
