// A real SMTP server on loopback (smtp-server) that hands over each mail it accepts, for tests that check what
// svckit delivers.
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';

export interface Delivery {
  from: string;
  to: string[];
  raw: string;
}

export interface Mailbox {
  url: string;
  /** Resolves with the next mail the server accepts. */
  next(): Promise<Delivery>;
  close(): Promise<void>;
}

/**
 * A plaintext SMTP server on 127.0.0.1 and a free port. `accept` decides each mail's fate: resolve to take it,
 * reject to answer the error; it may wait (a slow server).
 */
export async function startMailbox(accept: () => Promise<void> = () => Promise.resolve()): Promise<Mailbox> {
  const waiting: ((delivery: Delivery) => void)[] = [];
  const received: Delivery[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        accept().then(
          () => {
            const delivery = {
              from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((address) => address.address),
              raw: Buffer.concat(chunks).toString('utf8'),
            };
            callback();
            const waiter = waiting.shift();
            if (waiter) waiter(delivery);
            else received.push(delivery);
          },
          (error: Error) => callback(Object.assign(error, { responseCode: 554 })),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const mailbox: Mailbox = {
    url: `smtp://127.0.0.1:${port}`,
    next: () => {
      const ready = received.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return mailbox;
}
