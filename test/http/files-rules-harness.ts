// What the file-route rule suites need beyond files-harness.ts: the moment the store records why a scan gave
// no verdict (waited on instead of sleeping), and a multipart body written by hand, for part headers fetch
// will not send.
import { INTERNAL_SCAN_KEY, type FileRecord } from '../../runtime/files/record.js';
import { MemoryFileStore } from '../../runtime/files/store/memory-store.js';
import type { FileRecordPatch } from '../../runtime/files/store/store.js';
import { Signals } from './files-harness.js';
import { call } from './harness.js';

/** A memory store that says when a scan problem (the internal scan entry) was recorded for a file. */
export class WatchedFileStore extends MemoryFileStore {
  private readonly problems = new Signals<FileRecord>();

  override async update(
    tenantId: string,
    id: string,
    patch: FileRecordPatch,
  ): Promise<FileRecord | undefined> {
    const record = await super.update(tenantId, id, patch);
    if (record !== undefined && patch.metadata !== undefined && INTERNAL_SCAN_KEY in patch.metadata)
      this.problems.signal(id, record);
    return record;
  }

  /** Resolves with the record once a scan problem was recorded for `id`. */
  problemNoted(id: string): Promise<FileRecord> {
    return this.problems.next(id);
  }
}

const BOUNDARY = 'svc-rules-boundary';

/** One file part with exactly the given part headers (Content-Length included), as a multipart body. */
export function rawFilePart(
  url: string,
  part: { headers: string[]; bytes: Buffer | string },
  headers: Record<string, string>,
) {
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\n` +
        'Content-Disposition: form-data; name="file"; filename="raw.bin"\r\n' +
        'Content-Type: application/octet-stream\r\n' +
        part.headers.map((line) => `${line}\r\n`).join('') +
        '\r\n',
    ),
    Buffer.from(part.bytes),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  return call(`${url}/files`, {
    method: 'POST',
    body,
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
}
