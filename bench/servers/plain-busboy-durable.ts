// plain-busboy.ts doing the work svc's file service must do for every byte: a SHA-256 checksum of the file
// and fdatasync before answering (a stored file survives a crash). Not a target baseline: it shows how much of
// the gap between svc and plain busboy is that work rather than svc's own code.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { serveBusboyUploads } from './plain-busboy-server.js';
import { uploadPath } from './upload-target.js';

/** Streams the part to a new file through a SHA-256 hash, then flushes it to the device; the byte count. */
async function store(file: Readable): Promise<number> {
  const path = uploadPath();
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const target = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  await pipeline(file, hashing, target);
  hash.digest('hex');
  const handle = await open(path, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return target.bytesWritten;
}

serveBusboyUploads(store);
