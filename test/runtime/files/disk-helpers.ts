// Sources and file listings shared by the disk tests.
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** An async iterable that records whether anyone started reading it. */
export function recordingSource(chunks: Uint8Array[]): {
  source: AsyncIterable<Uint8Array>;
  reads: () => number;
} {
  let reads = 0;
  const source: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      let index = 0;
      return {
        async next() {
          reads++;
          const chunk = chunks[index++];
          return chunk === undefined ? { done: true, value: undefined } : { done: false, value: chunk };
        },
      };
    },
  };
  return { source, reads: () => reads };
}

/** Yields `before` chunks, then throws. */
export async function* failingSource(before: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of before) yield chunk;
  throw new Error('source broke');
}

/** Every file and directory under `root`, relative, sorted; links listed as files. */
export async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name))).sort();
}

export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
