// Where the upload bench servers write the files they receive: a fresh file in the directory the bench
// runner passes (BENCH_UPLOAD_DIR, which it deletes after each round), else in the OS temp directory.
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The largest upload plain busboy accepts: 2 GiB, as the spec declares for svc. The bench sends 1 GiB. */
export const UPLOAD_MAX_BYTES = 2 * 1024 ** 3;

export function uploadPath(): string {
  return join(process.env.BENCH_UPLOAD_DIR ?? tmpdir(), `upload-${randomUUID()}.bin`);
}
